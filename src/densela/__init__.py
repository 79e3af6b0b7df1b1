"""densela: dense linear algebra on the GPU, written in Triton.

Example:
    >>> import numpy as np, densela as dl
    >>> dl.matmul(np.ones((2, 3)), np.ones((3, 2)))
    array([[3., 3.],
           [3., 3.]])
"""

from densela._errors import LinAlgError
from densela.add import add
from densela.gemm import gemm, matmul
from densela.transpose import transpose, transpose_

__version__ = "0.1.0"

__all__ = ["LinAlgError", "__version__", "add", "gemm", "matmul", "transpose", "transpose_"]

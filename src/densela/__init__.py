"""densela: dense linear algebra on the GPU, written in Triton.

Example:
    >>> import numpy as np, densela as dl
    >>> dl.matmul(np.ones((2, 3)), np.ones((3, 2)))
    array([[3., 3.],
           [3., 3.]])
"""

from densela._errors import LinAlgError, LinAlgWarning, RefinementWarning
from densela.add import add
from densela.gemm import gemm, matmul
from densela.lu import SolveInfo, lu_factor, lu_factor_ex, lu_solve, solve, solve_ex
from densela.transpose import transpose, transpose_

__version__ = "0.1.0"

__all__ = [
    "LinAlgError",
    "LinAlgWarning",
    "RefinementWarning",
    "SolveInfo",
    "__version__",
    "add",
    "gemm",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "matmul",
    "solve",
    "solve_ex",
    "transpose",
    "transpose_",
]

"""The extension module under :mod:`gaps` (python/src/lib.rs): the command line's
commands called in this process."""

from typing import Any, Callable, List, Optional, Tuple, Union

__version__: str

class CallFailed(Exception):
    """``args``: (kind, subject, message); kind ``"usage"``, ``"input"`` or
    ``"internal"``, subject ``"position"``, ``"game"``, ``"steps"`` or ``"other"``."""

def call(
    args: List[str],
    stdin: Optional[str] = None,
    progress: Optional[Callable[[int], Any]] = None,
) -> Tuple[str, Union[str, List[str]]]: ...
def commands() -> List[str]: ...

"""Names a manifest name may not take in the generated module, per scope."""

from __future__ import annotations

from .imports import BOUND_NAMES

# Names the generated module binds itself: its imports, and what the template defines
# at top level besides the manifest's names.  Manifest names never start with "_" after
# naming, so the module's private names need no listing.
MODULE_DEFINES = frozenset(
    {"SOURCE", "PROVIDERS", "register", "unregister", "registration", "set_capture_state_hook"}
    | {"EventError", "TYPE_CHECKING"}
)
MODULE_NAMES = BOUND_NAMES | MODULE_DEFINES
# Python's builtins (3.11-3.13, fixed so output does not depend on the interpreter).
BUILTINS = frozenset(
    """ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup
    BlockingIOError BrokenPipeError BufferError BytesWarning ChildProcessError
    ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError
    DeprecationWarning EOFError Ellipsis EncodingWarning EnvironmentError Exception
    ExceptionGroup False FileExistsError FileNotFoundError FloatingPointError FutureWarning
    GeneratorExit IOError ImportError ImportWarning IndentationError IndexError
    InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError
    ModuleNotFoundError NameError None NotADirectoryError NotImplemented NotImplementedError
    OSError OverflowError PendingDeprecationWarning PermissionError ProcessLookupError
    PythonFinalizationError RecursionError ReferenceError ResourceWarning RuntimeError
    RuntimeWarning StopAsyncIteration StopIteration SyntaxError SyntaxWarning SystemError
    SystemExit TabError TimeoutError True TypeError UnboundLocalError UnicodeDecodeError
    UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning UserWarning
    ValueError Warning ZeroDivisionError abs aiter all anext any ascii bin bool breakpoint
    bytearray bytes callable chr classmethod compile complex copyright credits delattr dict
    dir divmod enumerate eval exec exit filter float format frozenset getattr globals
    hasattr hash help hex id input int isinstance issubclass iter len license list locals
    map max memoryview min next object oct open ord pow print property quit range repr
    reversed round set setattr slice sorted staticmethod str sum super tuple type vars
    zip""".split()
)
# Attributes every provider namespace class has, and module names its body refers to.
NAMESPACE_NAMES = frozenset(
    {"NAME", "GUID", "CONTROL_GUID", "GROUP_GUID", "Level", "Keyword", "Opcode", "Task"}
    | {"Channel", "runtime", "enum", "uuid", "Final"}
)
PARAM_RESERVED = frozenset({"activity_id", "related_activity_id", "activity"})

# The reserved names of each scope, computed once.
MODULE_SCOPE = MODULE_NAMES | BUILTINS
NAMESPACE_SCOPE = NAMESPACE_NAMES | BUILTINS
PARAM_SCOPE = PARAM_RESERVED | BUILTINS

//! Every constant a C program can observe from Debian's MPICH 4.0.2 `mpi.h`
//! (and the `mpio.h` it includes), with the exact value and C type.
//!
//! Handles (`MPI_Comm`, `MPI_Datatype`, `MPI_Group`, `MPI_Op`, `MPI_Request`,
//! `MPI_Errhandler`, `MPI_Info`, `MPI_Win`, `MPI_Message`, `MPI_Session`)
//! are 32-bit `int`s in MPICH. `MPI_File` is the exception: ROMIO makes it a
//! pointer, so `MPI_FILE_NULL` is an address constant here. Sentinel
//! pointers (`MPI_IN_PLACE`, `MPI_STATUS_IGNORE`, ...) are `usize` addresses
//! compared against the raw pointer a C caller passes.
//!
//! `MPI_UNWEIGHTED`, `MPI_WEIGHTS_EMPTY`, `MPI_F_STATUS_IGNORE` and the like
//! are not constants in MPICH but exported variables; see
//! [`crate::ffi::symbols`].
//!
//! The constants are declared through one macro that also builds
//! [`ALL_CONSTANTS`]; the `abi_constants` test prints the same names from C
//! and fails on any difference.

use std::os::raw::c_int;

/// A handle value written as MPICH writes it (hexadecimal, as unsigned) and
/// reinterpreted as the C `int` it is.
const fn h(bits: u32) -> c_int {
    bits as c_int
}

macro_rules! mpi_constants {
    ($(
        $(#[doc = $gdoc:literal])*
        $table:ident, $what:literal: $ty:ty {
            $( $name:ident = $value:expr $(=> $note:literal)? ; )*
        }
    )*) => {
        $(
            $(#[doc = $gdoc])*
            ///
            /// (C name, value widened to `i64`) of each constant in this group.
            pub const $table: &[(&str, i64)] = &[$((stringify!($name), $name as i64)),*];
            $(
                #[doc = concat!($what, " `", stringify!($name), "`", $(": ", $note,)? ".")]
                pub const $name: $ty = $value;
            )*
        )*

        /// Every constant of this module as (C name, value widened to `i64`;
        /// addresses as the signed `intptr_t` C prints). The `abi_constants`
        /// test generates its C program from this table.
        pub const ALL_CONSTANTS: &[(&str, i64)] = &[$($((stringify!($name), $name as i64),)*)*];

        /// The size in bytes of each constant's Rust type, in the order of
        /// [`ALL_CONSTANTS`]; the test compares it with C's `sizeof`.
        pub const ALL_CONSTANT_SIZES: &[(&str, usize)] =
            &[$($((stringify!($name), ::core::mem::size_of::<$ty>()),)*)*];
    };
}

mpi_constants! {
    /// Null handles: what freed or absent objects compare equal to.
    NULL_HANDLES, "Null handle": c_int {
        MPI_COMM_NULL = h(0x0400_0000);
        MPI_OP_NULL = h(0x1800_0000);
        MPI_GROUP_NULL = h(0x0800_0000);
        MPI_DATATYPE_NULL = h(0x0c00_0000);
        MPI_REQUEST_NULL = h(0x2c00_0000) => "also what completed requests are set to";
        MPI_ERRHANDLER_NULL = h(0x1400_0000);
        MPI_MESSAGE_NULL = h(0x2c00_0000) => "same value as MPI_REQUEST_NULL in MPICH";
        MPI_MESSAGE_NO_PROC = h(0x6c00_0000) => "message handle matched from MPI_PROC_NULL";
        MPI_INFO_NULL = h(0x1c00_0000);
        MPI_WIN_NULL = h(0x2000_0000);
        MPI_SESSION_NULL = h(0x3800_0000);
    }

    /// Predefined communicators, group, info and error handlers.
    PREDEFINED_OBJECTS, "Predefined handle": c_int {
        MPI_COMM_WORLD = h(0x4400_0000) => "all processes of the job";
        MPI_COMM_SELF = h(0x4400_0001) => "the calling process alone";
        MPI_GROUP_EMPTY = h(0x4800_0000) => "the group with no members";
        MPI_INFO_ENV = h(0x5c00_0001) => "info object describing the execution environment";
        MPI_ERRORS_ARE_FATAL = h(0x5400_0000) => "default error handler: abort on error";
        MPI_ERRORS_RETURN = h(0x5400_0001) => "error handler that returns the error code";
        MPIR_ERRORS_THROW_EXCEPTIONS = h(0x5400_0002) => "MPICH's C++ error handler";
        MPI_ERRORS_ABORT = h(0x5400_0003) => "MPI 4.0 handler aborting the communicator's processes";
    }

    /// Results of MPI_Comm_compare and MPI_Group_compare.
    COMPARISON_RESULTS, "Comparison result": c_int {
        MPI_IDENT = 0;
        MPI_CONGRUENT = 1;
        MPI_SIMILAR = 2;
        MPI_UNEQUAL = 3;
    }

    /// Predefined datatypes. Builtin ones (`0x4c......`) carry their size in
    /// bits 8..15; see [`builtin_datatype_size`].
    DATATYPES, "Predefined datatype": c_int {
        MPI_CHAR = h(0x4c00_0101) => "C char";
        MPI_SIGNED_CHAR = h(0x4c00_0118) => "C signed char";
        MPI_UNSIGNED_CHAR = h(0x4c00_0102) => "C unsigned char";
        MPI_BYTE = h(0x4c00_010d) => "uninterpreted byte";
        MPI_WCHAR = h(0x4c00_040e) => "C wchar_t (4 bytes)";
        MPI_SHORT = h(0x4c00_0203) => "C short";
        MPI_UNSIGNED_SHORT = h(0x4c00_0204) => "C unsigned short";
        MPI_INT = h(0x4c00_0405) => "C int";
        MPI_UNSIGNED = h(0x4c00_0406) => "C unsigned int";
        MPI_LONG = h(0x4c00_0807) => "C long";
        MPI_UNSIGNED_LONG = h(0x4c00_0808) => "C unsigned long";
        MPI_FLOAT = h(0x4c00_040a) => "C float";
        MPI_DOUBLE = h(0x4c00_080b) => "C double";
        MPI_LONG_DOUBLE = h(0x4c00_100c) => "C long double (16 bytes)";
        MPI_LONG_LONG_INT = h(0x4c00_0809) => "C long long";
        MPI_UNSIGNED_LONG_LONG = h(0x4c00_0819) => "C unsigned long long";
        MPI_LONG_LONG = MPI_LONG_LONG_INT => "alias of MPI_LONG_LONG_INT";
        MPI_PACKED = h(0x4c00_010f) => "packed bytes (MPI_Pack)";
        MPI_LB = h(0x4c00_0010) => "lower-bound marker (removed in MPI 3.0, size 0)";
        MPI_UB = h(0x4c00_0011) => "upper-bound marker (removed in MPI 3.0, size 0)";
        MPI_FLOAT_INT = h(0x8c00_0000) => "struct { float; int } for MINLOC/MAXLOC";
        MPI_DOUBLE_INT = h(0x8c00_0001) => "struct { double; int } for MINLOC/MAXLOC";
        MPI_LONG_INT = h(0x8c00_0002) => "struct { long; int } for MINLOC/MAXLOC";
        MPI_SHORT_INT = h(0x8c00_0003) => "struct { short; int } for MINLOC/MAXLOC";
        MPI_2INT = h(0x4c00_0816) => "struct { int; int } for MINLOC/MAXLOC (builtin)";
        MPI_LONG_DOUBLE_INT = h(0x8c00_0004) => "struct { long double; int } for MINLOC/MAXLOC";
        MPI_COMPLEX = h(0x4c00_081e) => "Fortran COMPLEX";
        MPI_DOUBLE_COMPLEX = h(0x4c00_1022) => "Fortran DOUBLE COMPLEX";
        MPI_LOGICAL = h(0x4c00_041d) => "Fortran LOGICAL";
        MPI_REAL = h(0x4c00_041c) => "Fortran REAL";
        MPI_DOUBLE_PRECISION = h(0x4c00_081f) => "Fortran DOUBLE PRECISION";
        MPI_INTEGER = h(0x4c00_041b) => "Fortran INTEGER";
        MPI_2INTEGER = h(0x4c00_0820) => "Fortran pair of INTEGER";
        MPI_2REAL = h(0x4c00_0821) => "Fortran pair of REAL";
        MPI_2DOUBLE_PRECISION = h(0x4c00_1023) => "Fortran pair of DOUBLE PRECISION";
        MPI_CHARACTER = h(0x4c00_011a) => "Fortran CHARACTER";
        MPI_REAL4 = h(0x4c00_0427) => "Fortran REAL*4";
        MPI_REAL8 = h(0x4c00_0829) => "Fortran REAL*8";
        MPI_REAL16 = h(0x4c00_102b) => "Fortran REAL*16";
        MPI_COMPLEX8 = h(0x4c00_0828) => "Fortran COMPLEX*8";
        MPI_COMPLEX16 = h(0x4c00_102a) => "Fortran COMPLEX*16";
        MPI_COMPLEX32 = h(0x4c00_202c) => "Fortran COMPLEX*32";
        MPI_INTEGER1 = h(0x4c00_012d) => "Fortran INTEGER*1";
        MPI_INTEGER2 = h(0x4c00_022f) => "Fortran INTEGER*2";
        MPI_INTEGER4 = h(0x4c00_0430) => "Fortran INTEGER*4";
        MPI_INTEGER8 = h(0x4c00_0831) => "Fortran INTEGER*8";
        MPI_INTEGER16 = MPI_DATATYPE_NULL => "Fortran INTEGER*16, unavailable (MPI_DATATYPE_NULL)";
        MPI_INT8_T = h(0x4c00_0137) => "C int8_t";
        MPI_INT16_T = h(0x4c00_0238) => "C int16_t";
        MPI_INT32_T = h(0x4c00_0439) => "C int32_t";
        MPI_INT64_T = h(0x4c00_083a) => "C int64_t";
        MPI_UINT8_T = h(0x4c00_013b) => "C uint8_t";
        MPI_UINT16_T = h(0x4c00_023c) => "C uint16_t";
        MPI_UINT32_T = h(0x4c00_043d) => "C uint32_t";
        MPI_UINT64_T = h(0x4c00_083e) => "C uint64_t";
        MPI_C_BOOL = h(0x4c00_013f) => "C _Bool";
        MPI_C_FLOAT_COMPLEX = h(0x4c00_0840) => "C float _Complex";
        MPI_C_COMPLEX = MPI_C_FLOAT_COMPLEX => "alias of MPI_C_FLOAT_COMPLEX";
        MPI_C_DOUBLE_COMPLEX = h(0x4c00_1041) => "C double _Complex";
        MPI_C_LONG_DOUBLE_COMPLEX = h(0x4c00_2042) => "C long double _Complex";
        MPIX_C_FLOAT16 = h(0x4c00_0246) => "MPICH extension: _Float16";
        MPI_AINT = h(0x4c00_0843) => "MPI_Aint (C long)";
        MPI_OFFSET = h(0x4c00_0844) => "MPI_Offset (C long)";
        MPI_COUNT = h(0x4c00_0845) => "MPI_Count (C long)";
        MPI_CXX_BOOL = h(0x4c00_0133) => "C++ bool";
        MPI_CXX_FLOAT_COMPLEX = h(0x4c00_0834) => "C++ `std::complex<float>`";
        MPI_CXX_DOUBLE_COMPLEX = h(0x4c00_1035) => "C++ `std::complex<double>`";
        MPI_CXX_LONG_DOUBLE_COMPLEX = h(0x4c00_2036) => "C++ `std::complex<long double>`";
    }

    /// Type classes of MPI_Type_match_size.
    TYPECLASSES, "Type class": c_int {
        MPI_TYPECLASS_REAL = 1;
        MPI_TYPECLASS_INTEGER = 2;
        MPI_TYPECLASS_COMPLEX = 3;
    }

    /// Predefined reduction operations.
    OPS, "Predefined operation": c_int {
        MPI_MAX = h(0x5800_0001);
        MPI_MIN = h(0x5800_0002);
        MPI_SUM = h(0x5800_0003);
        MPI_PROD = h(0x5800_0004);
        MPI_LAND = h(0x5800_0005);
        MPI_BAND = h(0x5800_0006);
        MPI_LOR = h(0x5800_0007);
        MPI_BOR = h(0x5800_0008);
        MPI_LXOR = h(0x5800_0009);
        MPI_BXOR = h(0x5800_000a);
        MPI_MINLOC = h(0x5800_000b);
        MPI_MAXLOC = h(0x5800_000c);
        MPI_REPLACE = h(0x5800_000d) => "for accumulate";
        MPI_NO_OP = h(0x5800_000e) => "for accumulate";
    }

    /// Predefined attribute keys of communicators and windows (C versions;
    /// MPICH's Fortran versions are these plus one).
    ATTRIBUTE_KEYS, "Predefined attribute key": c_int {
        MPI_TAG_UB = 0x6440_0001 => "largest usable tag";
        MPI_HOST = 0x6440_0003;
        MPI_IO = 0x6440_0005;
        MPI_WTIME_IS_GLOBAL = 0x6440_0007;
        MPI_UNIVERSE_SIZE = 0x6440_0009;
        MPI_LASTUSEDCODE = 0x6440_000b;
        MPI_APPNUM = 0x6440_000d;
        MPI_WIN_BASE = 0x6600_0001;
        MPI_WIN_SIZE = 0x6600_0003;
        MPI_WIN_DISP_UNIT = 0x6600_0005;
        MPI_WIN_CREATE_FLAVOR = 0x6600_0007;
        MPI_WIN_MODEL = 0x6600_0009;
        MPI_KEYVAL_INVALID = 0x2400_0000 => "the invalid key value";
    }

    /// Buffer sizes and limits.
    LIMITS, "Limit": c_int {
        MPI_MAX_PROCESSOR_NAME = 128 => "buffer size for MPI_Get_processor_name";
        MPI_MAX_LIBRARY_VERSION_STRING = 8192;
        MPI_MAX_ERROR_STRING = 512;
        MPI_MAX_PORT_NAME = 256;
        MPI_MAX_OBJECT_NAME = 128;
        MPI_MAX_STRINGTAG_LEN = 256;
        MPI_MAX_PSET_NAME_LEN = 256;
        MPI_MAX_INFO_KEY = 255;
        MPI_MAX_INFO_VAL = 1024;
        MPI_MAX_DATAREP_STRING = 128;
        MPI_BSEND_OVERHEAD = 96 => "upper bound of the bookkeeping per buffered send";
    }

    /// Special ranks, tags and results.
    SPECIAL_VALUES, "Special value": c_int {
        MPI_UNDEFINED = -32766;
        MPI_PROC_NULL = -1 => "rank of the null process";
        MPI_ANY_SOURCE = -2;
        MPI_ROOT = -3 => "root's rank argument in intercommunicator collectives";
        MPI_ANY_TAG = -1;
    }

    /// Thread support levels.
    THREAD_LEVELS, "Thread level": c_int {
        MPI_THREAD_SINGLE = 0;
        MPI_THREAD_FUNNELED = 1;
        MPI_THREAD_SERIALIZED = 2;
        MPI_THREAD_MULTIPLE = 3;
    }

    /// Topology types (MPI_Topo_test).
    TOPOLOGY_TYPES, "Topology type": c_int {
        MPI_GRAPH = 1;
        MPI_CART = 2;
        MPI_DIST_GRAPH = 3;
    }

    /// Datatype combiners (MPI_Type_get_envelope).
    COMBINERS, "Datatype combiner": c_int {
        MPI_COMBINER_NAMED = 1;
        MPI_COMBINER_DUP = 2;
        MPI_COMBINER_CONTIGUOUS = 3;
        MPI_COMBINER_VECTOR = 4;
        MPI_COMBINER_HVECTOR_INTEGER = 5;
        MPI_COMBINER_HVECTOR = 6;
        MPI_COMBINER_INDEXED = 7;
        MPI_COMBINER_HINDEXED_INTEGER = 8;
        MPI_COMBINER_HINDEXED = 9;
        MPI_COMBINER_INDEXED_BLOCK = 10;
        MPI_COMBINER_STRUCT_INTEGER = 11;
        MPI_COMBINER_STRUCT = 12;
        MPI_COMBINER_SUBARRAY = 13;
        MPI_COMBINER_DARRAY = 14;
        MPI_COMBINER_F90_REAL = 15;
        MPI_COMBINER_F90_COMPLEX = 16;
        MPI_COMBINER_F90_INTEGER = 17;
        MPI_COMBINER_RESIZED = 18;
        MPI_COMBINER_HINDEXED_BLOCK = 19;
    }

    /// Array orders and distributions of the subarray/darray constructors.
    ARRAY_LAYOUTS, "Array layout": c_int {
        MPI_ORDER_C = 56;
        MPI_ORDER_FORTRAN = 57;
        MPI_DISTRIBUTE_BLOCK = 121;
        MPI_DISTRIBUTE_CYCLIC = 122;
        MPI_DISTRIBUTE_NONE = 123;
        MPI_DISTRIBUTE_DFLT_DARG = -49767;
    }

    /// Split types of MPI_Comm_split_type.
    SPLIT_TYPES, "Communicator split type": c_int {
        MPI_COMM_TYPE_SHARED = 1;
        MPI_COMM_TYPE_HW_GUIDED = 2;
        MPI_COMM_TYPE_HW_UNGUIDED = 3;
        MPIX_COMM_TYPE_NEIGHBORHOOD = 4 => "MPICH extension";
    }

    /// One-sided communication: flavors, memory models, lock types, asserts.
    RMA, "One-sided constant": c_int {
        MPI_WIN_FLAVOR_CREATE = 1;
        MPI_WIN_FLAVOR_ALLOCATE = 2;
        MPI_WIN_FLAVOR_DYNAMIC = 3;
        MPI_WIN_FLAVOR_SHARED = 4;
        MPI_WIN_SEPARATE = 1;
        MPI_WIN_UNIFIED = 2;
        MPI_LOCK_EXCLUSIVE = 234;
        MPI_LOCK_SHARED = 235;
        MPI_MODE_NOCHECK = 1024;
        MPI_MODE_NOSTORE = 2048;
        MPI_MODE_NOPUT = 4096;
        MPI_MODE_NOPRECEDE = 8192;
        MPI_MODE_NOSUCCEED = 16384;
    }

    /// File access modes, seek origins and view constant (from mpio.h).
    FILE_IO, "MPI-IO constant": c_int {
        MPI_MODE_RDONLY = 2;
        MPI_MODE_RDWR = 8;
        MPI_MODE_WRONLY = 4;
        MPI_MODE_CREATE = 1;
        MPI_MODE_EXCL = 64;
        MPI_MODE_DELETE_ON_CLOSE = 16;
        MPI_MODE_UNIQUE_OPEN = 32;
        MPI_MODE_APPEND = 128;
        MPI_MODE_SEQUENTIAL = 256;
        MPI_DISPLACEMENT_CURRENT = -54278278;
        MPI_SEEK_SET = 600;
        MPI_SEEK_CUR = 602;
        MPI_SEEK_END = 604;
    }

    /// Indices into a Fortran status (MPI 4.0).
    FORTRAN_STATUS, "Fortran status index": c_int {
        MPI_F_STATUS_SIZE = 5 => "number of MPI_Fint in a Fortran status";
        MPI_F_SOURCE = 2;
        MPI_F_TAG = 3;
        MPI_F_ERROR = 4;
    }

    /// Version numbers the header advertises.
    VERSIONS, "Version constant": c_int {
        MPI_VERSION = 4 => "the header declares the MPI 4.0 API";
        MPI_SUBVERSION = 0;
        MPICH = 1 => "defined to say the implementation is MPICH";
        MPICH_NAME = 4;
        MPICH_HAS_C2F = 1;
        MPICH_NUMVERSION = 40002300 => "MPICH 4.0.2 (release type patch)";
        MPICH_RELEASE_TYPE_ALPHA = 0;
        MPICH_RELEASE_TYPE_BETA = 1;
        MPICH_RELEASE_TYPE_RC = 2;
        MPICH_RELEASE_TYPE_PATCH = 3;
        ROMIO_VERSION = 126 => "ROMIO 1.2.6";
        QMPI_MAX_TOOL_NAME_LENGTH = 256;
    }

    /// Error classes (return codes of MPI functions).
    ERROR_CLASSES, "Error class": c_int {
        MPI_SUCCESS = 0 => "successful return code";
        MPI_ERR_BUFFER = 1 => "invalid buffer pointer";
        MPI_ERR_COUNT = 2 => "invalid count argument";
        MPI_ERR_TYPE = 3 => "invalid datatype argument";
        MPI_ERR_TAG = 4 => "invalid tag argument";
        MPI_ERR_COMM = 5 => "invalid communicator";
        MPI_ERR_RANK = 6 => "invalid rank";
        MPI_ERR_ROOT = 7 => "invalid root";
        MPI_ERR_GROUP = 8 => "invalid group";
        MPI_ERR_OP = 9 => "invalid operation";
        MPI_ERR_TOPOLOGY = 10 => "invalid topology";
        MPI_ERR_DIMS = 11 => "invalid dimension argument";
        MPI_ERR_ARG = 12 => "invalid argument";
        MPI_ERR_UNKNOWN = 13 => "unknown error";
        MPI_ERR_TRUNCATE = 14 => "message truncated on receive";
        MPI_ERR_OTHER = 15 => "other error";
        MPI_ERR_INTERN = 16 => "internal error";
        MPI_ERR_IN_STATUS = 17 => "look in the statuses for the error";
        MPI_ERR_PENDING = 18 => "pending request";
        MPI_ERR_REQUEST = 19 => "invalid request handle";
        MPI_ERR_ACCESS = 20;
        MPI_ERR_AMODE = 21;
        MPI_ERR_BAD_FILE = 22;
        MPI_ERR_CONVERSION = 23;
        MPI_ERR_DUP_DATAREP = 24;
        MPI_ERR_FILE_EXISTS = 25;
        MPI_ERR_FILE_IN_USE = 26;
        MPI_ERR_FILE = 27;
        MPI_ERR_INFO = 28;
        MPI_ERR_INFO_KEY = 29;
        MPI_ERR_INFO_VALUE = 30;
        MPI_ERR_INFO_NOKEY = 31;
        MPI_ERR_IO = 32;
        MPI_ERR_NAME = 33;
        MPI_ERR_NO_MEM = 34 => "MPI_Alloc_mem could not allocate memory";
        MPI_ERR_NOT_SAME = 35;
        MPI_ERR_NO_SPACE = 36;
        MPI_ERR_NO_SUCH_FILE = 37;
        MPI_ERR_PORT = 38;
        MPI_ERR_QUOTA = 39;
        MPI_ERR_READ_ONLY = 40;
        MPI_ERR_SERVICE = 41;
        MPI_ERR_SPAWN = 42;
        MPI_ERR_UNSUPPORTED_DATAREP = 43;
        MPI_ERR_UNSUPPORTED_OPERATION = 44;
        MPI_ERR_WIN = 45;
        MPI_ERR_BASE = 46;
        MPI_ERR_LOCKTYPE = 47;
        MPI_ERR_KEYVAL = 48 => "erroneous attribute key";
        MPI_ERR_RMA_CONFLICT = 49;
        MPI_ERR_RMA_SYNC = 50;
        MPI_ERR_SIZE = 51;
        MPI_ERR_DISP = 52;
        MPI_ERR_ASSERT = 53;
        MPI_ERR_RMA_RANGE = 55;
        MPI_ERR_RMA_ATTACH = 56;
        MPI_ERR_RMA_SHARED = 57;
        MPI_ERR_RMA_FLAVOR = 58;
        MPI_T_ERR_MEMORY = 59;
        MPI_T_ERR_NOT_INITIALIZED = 60;
        MPI_T_ERR_CANNOT_INIT = 61;
        MPI_T_ERR_INVALID_INDEX = 62;
        MPI_T_ERR_INVALID_ITEM = 63;
        MPI_T_ERR_INVALID_HANDLE = 64;
        MPI_T_ERR_OUT_OF_HANDLES = 65;
        MPI_T_ERR_OUT_OF_SESSIONS = 66;
        MPI_T_ERR_INVALID_SESSION = 67;
        MPI_T_ERR_CVAR_SET_NOT_NOW = 68;
        MPI_T_ERR_CVAR_SET_NEVER = 69;
        MPI_T_ERR_PVAR_NO_STARTSTOP = 70;
        MPI_T_ERR_PVAR_NO_WRITE = 71;
        MPI_T_ERR_PVAR_NO_ATOMIC = 72;
        MPI_T_ERR_INVALID_NAME = 73;
        MPI_T_ERR_INVALID = 74;
        MPI_ERR_SESSION = 75;
        MPI_ERR_PROC_ABORTED = 76;
        MPI_ERR_VALUE_TOO_LARGE = 77;
        MPI_T_ERR_NOT_SUPPORTED = 78;
        MPI_ERR_LASTCODE = 0x3fff_ffff => "last valid error code of a predefined class";
        MPICH_ERR_LAST_CLASS = 78 => "last error class MPICH defines";
        MPICH_ERR_FIRST_MPIX = 100 => "MPIX error classes start above this";
        MPIX_ERR_PROC_FAILED = 101;
        MPIX_ERR_PROC_FAILED_PENDING = 102;
        MPIX_ERR_REVOKED = 103;
        MPIX_ERR_EAGAIN = 104;
        MPIX_ERR_NOREQ = 105;
        MPICH_ERR_LAST_MPIX = 105;
    }

    /// MPICH's GPU-support query values.
    MPICH_EXTENSIONS, "MPICH extension": c_int {
        MPIX_GPU_SUPPORT_CUDA = 0;
        MPIX_GPU_SUPPORT_ZE = 1;
        MPIX_GPU_SUPPORT_HIP = 2;
    }

    /// MPI_T (tool interface) enumerations.
    TOOL_INTERFACE, "MPI_T constant": c_int {
        MPI_T_VERBOSITY_INVALID = 0;
        MPI_T_VERBOSITY_USER_BASIC = 221;
        MPI_T_VERBOSITY_USER_DETAIL = 222;
        MPI_T_VERBOSITY_USER_ALL = 223;
        MPI_T_VERBOSITY_TUNER_BASIC = 224;
        MPI_T_VERBOSITY_TUNER_DETAIL = 225;
        MPI_T_VERBOSITY_TUNER_ALL = 226;
        MPI_T_VERBOSITY_MPIDEV_BASIC = 227;
        MPI_T_VERBOSITY_MPIDEV_DETAIL = 228;
        MPI_T_VERBOSITY_MPIDEV_ALL = 229;
        MPI_T_BIND_INVALID = 0;
        MPI_T_BIND_NO_OBJECT = 9700;
        MPI_T_BIND_MPI_COMM = 9701;
        MPI_T_BIND_MPI_DATATYPE = 9702;
        MPI_T_BIND_MPI_ERRHANDLER = 9703;
        MPI_T_BIND_MPI_FILE = 9704;
        MPI_T_BIND_MPI_GROUP = 9705;
        MPI_T_BIND_MPI_OP = 9706;
        MPI_T_BIND_MPI_REQUEST = 9707;
        MPI_T_BIND_MPI_WIN = 9708;
        MPI_T_BIND_MPI_MESSAGE = 9709;
        MPI_T_BIND_MPI_INFO = 9710;
        MPI_T_SCOPE_INVALID = 0;
        MPI_T_SCOPE_CONSTANT = 60438;
        MPI_T_SCOPE_READONLY = 60439;
        MPI_T_SCOPE_LOCAL = 60440;
        MPI_T_SCOPE_GROUP = 60441;
        MPI_T_SCOPE_GROUP_EQ = 60442;
        MPI_T_SCOPE_ALL = 60443;
        MPI_T_SCOPE_ALL_EQ = 60444;
        MPI_T_PVAR_CLASS_INVALID = 0;
        MPI_T_PVAR_CLASS_STATE = 240;
        MPI_T_PVAR_CLASS_LEVEL = 241;
        MPI_T_PVAR_CLASS_SIZE = 242;
        MPI_T_PVAR_CLASS_PERCENTAGE = 243;
        MPI_T_PVAR_CLASS_HIGHWATERMARK = 244;
        MPI_T_PVAR_CLASS_LOWWATERMARK = 245;
        MPI_T_PVAR_CLASS_COUNTER = 246;
        MPI_T_PVAR_CLASS_AGGREGATE = 247;
        MPI_T_PVAR_CLASS_TIMER = 248;
        MPI_T_PVAR_CLASS_GENERIC = 249;
        MPI_T_CB_REQUIRE_NONE = 0;
        MPI_T_CB_REQUIRE_MPI_RESTRICTED = 1;
        MPI_T_CB_REQUIRE_THREAD_SAFE = 2;
        MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE = 3;
        MPI_T_SOURCE_ORDERED = 0;
        MPI_T_SOURCE_UNORDERED = 1;
    }

    /// Sentinel pointers, as addresses: compare a pointer argument `p` from C
    /// with `p as usize == MPI_IN_PLACE`. Null function pointers and null
    /// pointer handles (MPI_File, MPI_T handles) are here too.
    SENTINELS, "Sentinel address": usize {
        MPI_BOTTOM = 0 => "(void *)0, start of the address space for absolute datatypes";
        MPI_IN_PLACE = usize::MAX => "(void *)-1, send buffer of in-place collectives";
        MPI_STATUS_IGNORE = 1 => "(MPI_Status *)1";
        MPI_STATUSES_IGNORE = 1 => "(MPI_Status *)1";
        MPI_ERRCODES_IGNORE = 0 => "(int *)0";
        MPI_ARGV_NULL = 0 => "(char **)0";
        MPI_ARGVS_NULL = 0 => "(char ***)0";
        MPI_FILE_NULL = 0 => "null MPI_File (a pointer in ROMIO)";
        MPI_NULL_COPY_FN = 0 => "null attribute copy callback";
        MPI_NULL_DELETE_FN = 0 => "null attribute delete callback";
        MPI_COMM_NULL_COPY_FN = 0;
        MPI_COMM_NULL_DELETE_FN = 0;
        MPI_WIN_NULL_COPY_FN = 0;
        MPI_WIN_NULL_DELETE_FN = 0;
        MPI_TYPE_NULL_COPY_FN = 0;
        MPI_TYPE_NULL_DELETE_FN = 0;
        MPI_CONVERSION_FN_NULL = 0;
        MPI_CONVERSION_FN_NULL_C = 0;
        MPI_T_ENUM_NULL = 0;
        MPI_T_CVAR_HANDLE_NULL = 0;
        MPI_T_PVAR_HANDLE_NULL = 0;
        MPI_T_PVAR_SESSION_NULL = 0;
    }
}

/// `MPI_Status` exactly as mpi.h lays it out (five `int`s, 20 bytes).
///
/// MPICH keeps the received size in bytes as a 63-bit count split over
/// `count_lo` (low 32 bits) and `count_hi_and_cancelled` (bit 0: the
/// cancelled flag; bits 1..31: count bits 32..62). Use [`MpiStatus::count`],
/// [`MpiStatus::set_count`], [`MpiStatus::cancelled`] and
/// [`MpiStatus::set_cancelled`] rather than the two fields.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MpiStatus {
    /// Low 32 bits of the byte count.
    pub count_lo: c_int,
    /// Cancelled flag in bit 0, byte-count bits 32..62 in bits 1..31.
    pub count_hi_and_cancelled: c_int,
    /// `MPI_SOURCE`: rank of the sender.
    pub mpi_source: c_int,
    /// `MPI_TAG`: tag of the message.
    pub mpi_tag: c_int,
    /// `MPI_ERROR`: error code (set only by multiple-completion calls).
    pub mpi_error: c_int,
}

impl MpiStatus {
    /// The byte count (`MPI_Count`) encoded in the status.
    pub fn count(&self) -> i64 {
        let lo = self.count_lo as u32 as u64;
        let hi = (self.count_hi_and_cancelled as u32 >> 1) as u64;
        ((hi << 32) | lo) as i64
    }

    /// Stores a byte count, keeping the cancelled flag. Every count in
    /// `0..=i64::MAX` round-trips; MPICH has no room for a sign bit.
    pub fn set_count(&mut self, count: i64) {
        let c = count as u64;
        self.count_lo = c as u32 as c_int;
        let hi = ((c >> 32) as u32) << 1;
        let cancelled = self.count_hi_and_cancelled as u32 & 1;
        self.count_hi_and_cancelled = (hi | cancelled) as c_int;
    }

    /// Whether the request was cancelled (MPI_Test_cancelled).
    pub fn cancelled(&self) -> bool {
        self.count_hi_and_cancelled & 1 != 0
    }

    /// Sets or clears the cancelled flag, keeping the count.
    pub fn set_cancelled(&mut self, cancelled: bool) {
        self.count_hi_and_cancelled = (self.count_hi_and_cancelled & !1) | cancelled as c_int;
    }
}

/// Bits 26..31 of every builtin datatype handle: builtin kind (`01` in bits
/// 30..31) and the datatype object type (`0x3` in bits 26..29).
const BUILTIN_DATATYPE_TAG: u32 = 0x4c00_0000;
/// Mask selecting the kind and object-type bits of a handle.
const KIND_AND_OBJECT_MASK: u32 = 0xfc00_0000;

/// Whether `handle` is one of MPICH's builtin datatypes (`0x4c......`). The
/// pair types MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT and
/// MPI_LONG_DOUBLE_INT are predefined but not builtin (`0x8c......`); see
/// [`pair_datatype_layout`].
pub const fn is_builtin_datatype(handle: c_int) -> bool {
    (handle as u32) & KIND_AND_OBJECT_MASK == BUILTIN_DATATYPE_TAG
}

/// The size in bytes of a builtin datatype, which MPICH encodes in bits
/// 8..15 of the handle (MPI_LB and MPI_UB have size 0); `None` for any
/// other handle.
pub const fn builtin_datatype_size(handle: c_int) -> Option<usize> {
    if is_builtin_datatype(handle) {
        Some(((handle as u32 >> 8) & 0xff) as usize)
    } else {
        None
    }
}

/// Size (bytes of data) and extent (bytes of the C struct, with padding) of
/// a predefined value-index pair datatype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairLayout {
    /// `MPI_Type_size`: the value's size plus 4 for the `int` index.
    pub size: usize,
    /// `MPI_Type_get_extent`: `sizeof(struct { value; int; })`.
    pub extent: usize,
    /// Offset of the `int` index within the struct.
    pub index_offset: usize,
}

/// The layout of the non-builtin pair datatypes MPI_FLOAT_INT,
/// MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT and MPI_LONG_DOUBLE_INT
/// (x86-64); `None` for other handles. (MPI_2INT is builtin and has size 8.)
pub const fn pair_datatype_layout(handle: c_int) -> Option<PairLayout> {
    let (value, extent): (usize, usize) = match handle {
        MPI_FLOAT_INT => (4, 8),
        MPI_DOUBLE_INT => (8, 16),
        MPI_LONG_INT => (8, 16),
        MPI_SHORT_INT => (2, 8),
        MPI_LONG_DOUBLE_INT => (16, 32),
        _ => return None,
    };
    // The index follows the value, aligned to 4 bytes.
    let index_offset = value.div_ceil(4) * 4;
    Some(PairLayout {
        size: value + 4,
        extent,
        index_offset,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_layout_is_five_ints() {
        assert_eq!(std::mem::size_of::<MpiStatus>(), 20);
        assert_eq!(std::mem::align_of::<MpiStatus>(), 4);
    }

    #[test]
    fn status_count_round_trips_and_keeps_cancelled() {
        for count in [
            0i64,
            1,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
            1 << 32,
            0x0123_4567_89ab,
            i64::MAX,
        ] {
            for cancelled in [false, true] {
                let mut s = MpiStatus::default();
                s.set_cancelled(cancelled);
                s.set_count(count);
                assert_eq!(s.count(), count, "count {count:#x}");
                assert_eq!(s.cancelled(), cancelled);
                s.set_cancelled(!cancelled);
                assert_eq!(s.count(), count);
                assert_eq!(s.cancelled(), !cancelled);
            }
        }
    }

    #[test]
    fn status_encoding_matches_mpich() {
        // Fields MPICH 4.0.2 wrote for MPI_Status_set_elements_x(&s,
        // MPI_BYTE, 0x123456789ab) followed by MPI_Status_set_cancelled(&s, 1).
        let mut s = MpiStatus::default();
        s.set_count(0x0123_4567_89ab);
        s.set_cancelled(true);
        assert_eq!(s.count_lo, 0x4567_89ab);
        assert_eq!(s.count_hi_and_cancelled, (0x123 << 1) | 1);
    }

    #[test]
    fn builtin_sizes() {
        assert_eq!(builtin_datatype_size(MPI_CHAR), Some(1));
        assert_eq!(builtin_datatype_size(MPI_INT), Some(4));
        assert_eq!(builtin_datatype_size(MPI_DOUBLE), Some(8));
        assert_eq!(builtin_datatype_size(MPI_LONG_DOUBLE), Some(16));
        assert_eq!(builtin_datatype_size(MPI_C_LONG_DOUBLE_COMPLEX), Some(32));
        assert_eq!(builtin_datatype_size(MPI_2INT), Some(8));
        assert_eq!(builtin_datatype_size(MPI_LB), Some(0));
        assert_eq!(builtin_datatype_size(MPI_DATATYPE_NULL), None);
        assert_eq!(builtin_datatype_size(MPI_DOUBLE_INT), None);
        assert_eq!(builtin_datatype_size(MPI_COMM_WORLD), None);
        assert!(is_builtin_datatype(MPI_BYTE));
        assert!(!is_builtin_datatype(MPI_FLOAT_INT));
        assert!(!is_builtin_datatype(MPI_INTEGER16));
    }

    #[test]
    fn pair_layouts() {
        let d = pair_datatype_layout(MPI_DOUBLE_INT).unwrap();
        assert_eq!((d.size, d.extent, d.index_offset), (12, 16, 8));
        let s = pair_datatype_layout(MPI_SHORT_INT).unwrap();
        assert_eq!((s.size, s.extent, s.index_offset), (6, 8, 4));
        assert_eq!(pair_datatype_layout(MPI_2INT), None);
    }

    #[test]
    fn table_has_every_constant_once() {
        let mut names: Vec<&str> = ALL_CONSTANTS.iter().map(|(n, _)| *n).collect();
        let total = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), total, "a constant is declared twice");
        assert_eq!(ALL_CONSTANT_SIZES.len(), total);
        assert!(ALL_CONSTANTS.contains(&("MPI_IN_PLACE", -1)));
        assert!(ALL_CONSTANTS.contains(&("MPI_FLOAT_INT", 0x8c00_0000u32 as i32 as i64)));
    }
}

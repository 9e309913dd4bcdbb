//! The CUDA runtime as CUDA IPC ([`crate::cuda_ipc`]) needs it: the library LibTorch has
//! already loaded, found at run time (`dlopen` with `RTLD_NOLOAD`), and the six calls IPC
//! makes, looked up by name. A CPU build compiles and runs unchanged; where no GPU can be
//! used, [`Runtime::load`] says in one line why (`torch_link::why_no_cuda`).

use std::ffi::{c_int, c_uint, c_void, CString};
use std::sync::OnceLock;
use tch::Device;

/// `cudaIpcMemHandle_t`: 64 opaque bytes naming a device allocation across processes.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct IpcHandle {
    pub(crate) reserved: [u8; 64],
}

/// `cudaIpcMemLazyEnablePeerAccess`: the flag `cudaIpcOpenMemHandle` requires.
pub(crate) const LAZY_ENABLE_PEER_ACCESS: c_uint = 1;

/// The CUDA runtime calls IPC needs, from the library LibTorch loaded.
pub struct Runtime {
    pub(crate) set_device: unsafe extern "C" fn(c_int) -> c_int,
    pub(crate) malloc: unsafe extern "C" fn(*mut *mut c_void, usize) -> c_int,
    pub(crate) free: unsafe extern "C" fn(*mut c_void) -> c_int,
    pub(crate) get_handle: unsafe extern "C" fn(*mut IpcHandle, *mut c_void) -> c_int,
    pub(crate) open_handle: unsafe extern "C" fn(*mut *mut c_void, IpcHandle, c_uint) -> c_int,
    pub(crate) close_handle: unsafe extern "C" fn(*mut c_void) -> c_int,
}

/// The sonames LibTorch 2.11's CUDA builds link (CUDA 13, then 12).
const CUDART: [&str; 2] = ["libcudart.so.13", "libcudart.so.12"];

impl Runtime {
    /// The CUDA runtime already loaded in this process, or why there is none.
    pub fn load() -> Result<&'static Runtime, String> {
        static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();
        RUNTIME.get_or_init(find).as_ref().map_err(Clone::clone)
    }

    pub(crate) fn check(&self, call: &str, code: c_int) -> Result<(), String> {
        match code {
            0 => Ok(()),
            e => Err(format!("{call} failed with cudaError {e}")),
        }
    }
}

/// Looks up the runtime LibTorch loaded and the calls IPC needs.
fn find() -> Result<Runtime, String> {
    if let Some(why) = torch_link::why_no_cuda(tch::Cuda::is_available()) {
        return Err(format!("no CUDA IPC: {why}"));
    }
    let lib = CUDART.iter().find_map(|name| {
        let name = CString::new(*name).expect("no NUL in a soname");
        // SAFETY: dlopen with RTLD_NOLOAD only returns a library that is already loaded.
        let h = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD) };
        (!h.is_null()).then_some(h)
    });
    let Some(lib) = lib else {
        return Err(format!(
            "no CUDA IPC: none of {CUDART:?} is loaded in this process"
        ));
    };
    let symbol = |name: &str| -> Result<*mut c_void, String> {
        let c = CString::new(name).expect("no NUL in a symbol");
        // SAFETY: `lib` is a live handle; dlsym only looks the name up.
        let f = unsafe { libc::dlsym(lib, c.as_ptr()) };
        if f.is_null() {
            Err(format!("the CUDA runtime has no {name}"))
        } else {
            Ok(f)
        }
    };
    type Ptr = *mut c_void;
    // SAFETY: each symbol has the C signature of the CUDA runtime API it is cast to.
    unsafe {
        Ok(Runtime {
            set_device: std::mem::transmute::<Ptr, unsafe extern "C" fn(c_int) -> c_int>(symbol(
                "cudaSetDevice",
            )?),
            malloc: std::mem::transmute::<Ptr, unsafe extern "C" fn(*mut Ptr, usize) -> c_int>(
                symbol("cudaMalloc")?,
            ),
            free: std::mem::transmute::<Ptr, unsafe extern "C" fn(Ptr) -> c_int>(symbol(
                "cudaFree",
            )?),
            get_handle: std::mem::transmute::<
                Ptr,
                unsafe extern "C" fn(*mut IpcHandle, Ptr) -> c_int,
            >(symbol("cudaIpcGetMemHandle")?),
            open_handle: std::mem::transmute::<
                Ptr,
                unsafe extern "C" fn(*mut Ptr, IpcHandle, c_uint) -> c_int,
            >(symbol("cudaIpcOpenMemHandle")?),
            close_handle: std::mem::transmute::<Ptr, unsafe extern "C" fn(Ptr) -> c_int>(symbol(
                "cudaIpcCloseMemHandle",
            )?),
        })
    }
}

/// The GPU `device` names, or why a tensor elsewhere cannot be moved by IPC.
pub(crate) fn gpu_index(device: Device) -> Result<c_int, String> {
    match device {
        Device::Cuda(i) => Ok(i as c_int),
        other => Err(format!(
            "CUDA IPC moves GPU memory; this tensor is on {other:?}"
        )),
    }
}

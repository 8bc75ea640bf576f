//! With feature `cvodes`: compiles the CVODES runners' C code (`cvodes/*.c`) and links
//! SUNDIALS' CVODES from the system (Debian's `libsundials-dev`, which `run.sh` installs).
//! Without the feature there is nothing to build.

fn main() {
    #[cfg(feature = "cvodes")]
    cvodes();
}

#[cfg(feature = "cvodes")]
fn cvodes() {
    let header = std::path::Path::new("/usr/include/cvodes/cvodes.h");
    if !header.exists() {
        panic!(
            "feature `cvodes` needs SUNDIALS' headers and libraries ({} is missing): \
             `apt-get install libsundials-dev` (run.sh does), or build without the feature",
            header.display()
        );
    }
    println!("cargo:rerun-if-changed=cvodes/robertson.c");
    cc::Build::new()
        .file("cvodes/robertson.c")
        .opt_level(2)
        .warnings(true)
        .compile("hysens_peers_cvodes");
    for lib in [
        "sundials_cvodes",
        "sundials_nvecserial",
        "sundials_sunlinsoldense",
        "sundials_sunmatrixdense",
        "sundials_generic",
    ] {
        println!("cargo:rustc-link-lib=dylib={lib}");
    }
}

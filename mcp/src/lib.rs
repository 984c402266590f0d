//! Aperture's MCP surface: the loopback listener, the tool set, and the act → observe-delta
//! loop. The browser is reached only through [`backend::Backend`], which `app/` implements.

pub mod backend;

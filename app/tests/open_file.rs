//! Ctrl+O opens a file of the computer, as in every desktop browser: in the real window under
//! X, the browser's own picker comes up over the page, the path typed into it with real keys
//! loads that file in the tab (its address is the file's `file://` URL), and the page is drawn.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use aperture_ui::chrome::controls;
use aperture_ui::egui::Key;
use window::{App, Layout, Scratch};

const MAGENTA: [u8; 3] = [230, 20, 140];
const CYAN: [u8; 3] = [0, 200, 200];

#[test]
fn ctrl_o_opens_a_local_file_in_the_tab() {
    if !window::can_run("open_file") {
        return;
    }
    let server = Server::page(
        r#"<!doctype html><title>Start</title><body style="margin:0">
<div style="position:absolute;left:40px;top:120px;width:300px;height:200px;background:rgb(230,20,140)"></div>"#,
    );
    let dir = Scratch::new("open-file");
    let file = dir.0.join("note.html");
    std::fs::write(
        &file,
        r#"<!doctype html><title>Local note</title><body style="margin:0">
<div style="position:absolute;left:40px;top:120px;width:300px;height:200px;background:rgb(0,200,200)"></div>"#,
    )
    .unwrap();
    let url = server.url("/");
    let app = App::launch(&dir.0, 0, &[&url]);
    app.wait_for(MAGENTA, "open-file-start");

    app.key("ctrl+o");
    let mut layout = Layout::new(app.size(), Layout::one_tab(&url));
    layout.ctrl(Key::O);
    let path = layout.click(controls::FILE_PATH);
    app.click(path, 1);
    app.key("ctrl+a");
    app.type_text(&file.display().to_string());
    app.key("Return");
    app.wait_for(CYAN, "open-file-loaded");
    // The tab's address is the file's (the session the window saves has it).
    let address = format!("file://{}", file.display());
    window::wait_session(&dir.profile(), "the file's address", |s| s.contains(&address));
}

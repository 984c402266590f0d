//! A page's file input in the real window under X: a click on it opens the browser's own
//! picker over the page, the path typed into it with real keys is the file the page gets (its
//! name and its bytes, read back by the page), as a person uploads a photo or a document.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use aperture_ui::chrome::controls;
use aperture_ui::egui::{Rect, vec2};
use aperture_ui::model::{FileChooserMode, FileChooserView, TabId};
use window::{App, Layout, Scratch};

const MAGENTA: [u8; 3] = [230, 20, 140];
const CYAN: [u8; 3] = [0, 200, 200];

/// The label is the input's face: a click on it opens the chooser as a click on the input
/// does. The page turns cyan only when it read back exactly the bytes of the chosen file.
const PAGE: &str = r#"<!doctype html><title>Upload</title><body style="margin:0">
<input type=file id=f style="position:absolute;left:-9999px">
<label for=f id=face style="position:absolute;left:40px;top:120px;width:300px;height:200px;background:rgb(230,20,140)"></label>
<script>
f.onchange = () => {
  const file = f.files[0];
  file.text().then(t => {
    document.title = file.name + ' ' + file.size;
    if (file.name === 'photo.txt' && t === 'the bytes of a photo') face.style.background = 'rgb(0,200,200)';
  });
};
</script>"#;

#[test]
fn a_page_s_file_input_gets_the_file_the_human_picks() {
    if !window::can_run("upload") {
        return;
    }
    let server = Server::page(PAGE);
    let dir = Scratch::new("upload");
    let file = dir.0.join("photo.txt");
    std::fs::write(&file, "the bytes of a photo").unwrap();
    let url = server.url("/");
    let app = App::launch(&dir.0, 0, &[&url]);
    app.wait_for(MAGENTA, "upload-page");
    window::xdo(&["windowfocus", "--sync", &app.window]);

    // The same picker, drawn the same way here, says where its path field is.
    let mut layout = Layout::new(app.size(), Layout::one_tab(&url));
    layout.model.file_chooser = Some(FileChooserView {
        tab: TabId(1),
        id: 1,
        mode: FileChooserMode::Open,
        title: String::new(),
        accept: Vec::new(),
        default_path: None,
    });
    layout.frames(vec![], 3);
    let path = layout.click(controls::FILE_PATH);

    let img = app.capture();
    app.click(window::centre(&img, MAGENTA).expect("the label is drawn"), 1);
    // The picker comes up over the page once the click has reached it (its title and Up
    // button beside the path field: the field itself is as white as the page under it).
    app.wait_changed(
        Rect::from_center_size(path, vec2(700.0, 60.0)),
        &img,
        "upload-picker",
    );
    app.click(path, 1);
    app.key("ctrl+a");
    app.type_text(&file.display().to_string());
    app.key("Return");
    app.wait_for(CYAN, "upload-read-back");
}

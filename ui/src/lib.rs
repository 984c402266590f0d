//! egui browser chrome.

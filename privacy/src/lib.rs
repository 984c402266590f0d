//! Identity containers, tracker blocking, navigation policy. No CEF.

//! egui key events → the codes CEF's `CefKeyEvent` wants.
//!
//! CEF on Linux drives its key handling from the Windows virtual-key code
//! (`windows_key_code`) and uses the X11 hardware keycode
//! (`native_key_code`) for things like `KeyboardEvent.code`. egui gives us a
//! logical key plus the US-layout physical position, which maps onto both.

use egui::Key;

use crate::command::{KeyInput, Modifiers};

/// Windows virtual-key code for a logical key; 0 when there is none.
pub fn windows_key_code(key: Key) -> i32 {
    use Key::*;
    match key {
        ArrowLeft => 0x25,
        ArrowUp => 0x26,
        ArrowRight => 0x27,
        ArrowDown => 0x28,
        Escape => 0x1B,
        Tab => 0x09,
        Backspace => 0x08,
        Enter => 0x0D,
        Space => 0x20,
        Insert => 0x2D,
        Delete => 0x2E,
        Home => 0x24,
        End => 0x23,
        PageUp => 0x21,
        PageDown => 0x22,
        Num0 => 0x30,
        Num1 | Exclamationmark => 0x31,
        Num2 => 0x32,
        Num3 => 0x33,
        Num4 => 0x34,
        Num5 => 0x35,
        Num6 => 0x36,
        Num7 => 0x37,
        Num8 => 0x38,
        Num9 => 0x39,
        A => 0x41,
        B => 0x42,
        C => 0x43,
        D => 0x44,
        E => 0x45,
        F => 0x46,
        G => 0x47,
        H => 0x48,
        I => 0x49,
        J => 0x4A,
        K => 0x4B,
        L => 0x4C,
        M => 0x4D,
        N => 0x4E,
        O => 0x4F,
        P => 0x50,
        Q => 0x51,
        R => 0x52,
        S => 0x53,
        T => 0x54,
        U => 0x55,
        V => 0x56,
        W => 0x57,
        X => 0x58,
        Y => 0x59,
        Z => 0x5A,
        F1 => 0x70,
        F2 => 0x71,
        F3 => 0x72,
        F4 => 0x73,
        F5 => 0x74,
        F6 => 0x75,
        F7 => 0x76,
        F8 => 0x77,
        F9 => 0x78,
        F10 => 0x79,
        F11 => 0x7A,
        F12 => 0x7B,
        F13 => 0x7C,
        F14 => 0x7D,
        F15 => 0x7E,
        F16 => 0x7F,
        F17 => 0x80,
        F18 => 0x81,
        F19 => 0x82,
        F20 => 0x83,
        F21 => 0x84,
        F22 => 0x85,
        F23 => 0x86,
        F24 => 0x87,
        // US-layout OEM keys; shifted variants share the unshifted key's code
        // because the VK names the key, not the character.
        Semicolon | Colon => 0xBA,
        Equals | Plus => 0xBB,
        Comma => 0xBC,
        Minus => 0xBD,
        Period => 0xBE,
        Slash | Questionmark => 0xBF,
        Backtick => 0xC0,
        OpenBracket | OpenCurlyBracket => 0xDB,
        Backslash | Pipe => 0xDC,
        CloseBracket | CloseCurlyBracket => 0xDD,
        Quote => 0xDE,
        IntlBackslash => 0xE2,
        // Chromium wants the generic modifier codes, not VK_LSHIFT & co.
        ShiftLeft | ShiftRight => 0x10,
        ControlLeft | ControlRight => 0x11,
        AltLeft | AltRight => 0x12,
        SuperLeft => 0x5B,
        SuperRight => 0x5C,
        Menu => 0x5D,
        CapsLock => 0x14,
        NumLock => 0x90,
        ScrollLock => 0x91,
        PrintScreen => 0x2C,
        Pause => 0x13,
        Help => 0x2F,
        Sleep => 0x5F,
        Clear => 0x0C,
        BrowserBack => 0xA6,
        BrowserForward => 0xA7,
        BrowserRefresh => 0xA8,
        BrowserStop => 0xA9,
        BrowserSearch => 0xAA,
        BrowserFavorites => 0xAB,
        BrowserHome => 0xAC,
        AudioVolumeMute => 0xAD,
        AudioVolumeDown => 0xAE,
        AudioVolumeUp => 0xAF,
        MediaTrackNext => 0xB0,
        MediaTrackPrevious => 0xB1,
        MediaStop => 0xB2,
        MediaPlayPause => 0xB3,
        LaunchMail => 0xB4,
        LaunchApp1 => 0xB6,
        LaunchApp2 => 0xB7,
        _ => 0,
    }
}

/// X11 hardware keycode (evdev + 8) for a US-layout physical key position;
/// 0 when unknown.
pub fn x11_keycode(physical: Key) -> i32 {
    use Key::*;
    // Letters by row, as evdev numbers them.
    const ROW_Q: [Key; 10] = [Q, W, E, R, T, Y, U, I, O, P];
    const ROW_A: [Key; 9] = [A, S, D, F, G, H, J, K, L];
    const ROW_Z: [Key; 7] = [Z, X, C, V, B, N, M];
    const DIGITS: [Key; 10] = [Num1, Num2, Num3, Num4, Num5, Num6, Num7, Num8, Num9, Num0];
    const F1_F10: [Key; 10] = [F1, F2, F3, F4, F5, F6, F7, F8, F9, F10];
    const F13_F24: [Key; 12] = [F13, F14, F15, F16, F17, F18, F19, F20, F21, F22, F23, F24];
    let pos = |row: &[Key], base: i32| row.iter().position(|k| *k == physical).map(|i| base + i as i32);
    let evdev = pos(&ROW_Q, 16)
        .or_else(|| pos(&ROW_A, 30))
        .or_else(|| pos(&ROW_Z, 44))
        .or_else(|| pos(&DIGITS, 2))
        .or_else(|| pos(&F1_F10, 59))
        .or_else(|| pos(&F13_F24, 183))
        .or(match physical {
            Escape => Some(1),
            Minus => Some(12),
            Equals => Some(13),
            Backspace => Some(14),
            Tab => Some(15),
            OpenBracket => Some(26),
            CloseBracket => Some(27),
            Enter => Some(28),
            ControlLeft => Some(29),
            Semicolon => Some(39),
            Quote => Some(40),
            Backtick => Some(41),
            ShiftLeft => Some(42),
            Backslash => Some(43),
            Comma => Some(51),
            Period => Some(52),
            Slash => Some(53),
            ShiftRight => Some(54),
            AltLeft => Some(56),
            Space => Some(57),
            CapsLock => Some(58),
            NumLock => Some(69),
            ScrollLock => Some(70),
            IntlBackslash => Some(86),
            F11 => Some(87),
            F12 => Some(88),
            ControlRight => Some(97),
            PrintScreen => Some(99),
            AltRight => Some(100),
            Home => Some(102),
            ArrowUp => Some(103),
            PageUp => Some(104),
            ArrowLeft => Some(105),
            ArrowRight => Some(106),
            End => Some(107),
            ArrowDown => Some(108),
            PageDown => Some(109),
            Insert => Some(110),
            Delete => Some(111),
            AudioVolumeMute => Some(113),
            AudioVolumeDown => Some(114),
            AudioVolumeUp => Some(115),
            Pause => Some(119),
            SuperLeft => Some(125),
            SuperRight => Some(126),
            Menu => Some(127),
            _ => None,
        });
    evdev.map_or(0, |e| e + 8)
}

/// Character a key produces that egui doesn't deliver as `Event::Text`
/// (it filters control characters), but that pages expect a `keypress` /
/// CEF `KEYEVENT_CHAR` for.
pub fn control_character(key: Key) -> Option<char> {
    match key {
        Key::Enter => Some('\r'),
        Key::Tab => Some('\t'),
        Key::Backspace => Some('\u{8}'),
        Key::Escape => Some('\u{1b}'),
        _ => None,
    }
}

/// Convert egui modifiers.
pub fn modifiers(m: egui::Modifiers) -> Modifiers {
    Modifiers {
        shift: m.shift,
        ctrl: m.ctrl || (m.command && !m.mac_cmd),
        alt: m.alt,
        meta: m.mac_cmd,
        ..Modifiers::default()
    }
}

/// Build a [`KeyInput`] from an egui key event.
pub fn key_input(key: Key, physical: Option<Key>, mods: egui::Modifiers, repeat: bool) -> KeyInput {
    KeyInput {
        windows_key_code: windows_key_code(key),
        native_key_code: x11_keycode(physical.unwrap_or(key)),
        modifiers: modifiers(mods),
        repeat,
        is_keypad: false,
        character: control_character(key),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_digits_and_specials() {
        assert_eq!(windows_key_code(Key::A), 0x41);
        assert_eq!(windows_key_code(Key::Z), 0x5A);
        assert_eq!(windows_key_code(Key::Num0), 0x30);
        assert_eq!(windows_key_code(Key::Enter), 0x0D);
        assert_eq!(windows_key_code(Key::F5), 0x74);
        assert_eq!(windows_key_code(Key::Colon), windows_key_code(Key::Semicolon));
    }

    #[test]
    fn x11_codes_match_evdev_plus_8() {
        assert_eq!(x11_keycode(Key::Escape), 9);
        assert_eq!(x11_keycode(Key::Num1), 10);
        assert_eq!(x11_keycode(Key::Num0), 19);
        assert_eq!(x11_keycode(Key::Q), 24);
        assert_eq!(x11_keycode(Key::A), 38);
        assert_eq!(x11_keycode(Key::Z), 52);
        assert_eq!(x11_keycode(Key::Enter), 36);
        assert_eq!(x11_keycode(Key::Space), 65);
        assert_eq!(x11_keycode(Key::ArrowLeft), 113);
        assert_eq!(x11_keycode(Key::F1), 67);
        assert_eq!(x11_keycode(Key::F12), 96);
        assert_eq!(x11_keycode(Key::Copy), 0);
    }

    #[test]
    fn key_input_carries_control_chars() {
        let k = key_input(Key::Enter, Some(Key::Enter), egui::Modifiers::SHIFT, false);
        assert_eq!(k.character, Some('\r'));
        assert!(k.modifiers.shift);
        assert_eq!(
            key_input(Key::A, Some(Key::A), egui::Modifiers::NONE, true).character,
            None
        );
    }
}

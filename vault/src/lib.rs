//! Agent-blind password vault, TOTP and autofill profiles. No CEF.

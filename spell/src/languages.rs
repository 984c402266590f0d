//! Chromium's spellcheck languages and the versioned names of their `.bdic` files, from
//! `components/spellcheck/common/spellcheck_common.cc`. Chromium only loads a dictionary
//! whose file name carries the version it expects, so these must follow the Chromium (CEF)
//! version the browser runs.

/// `(language, the language-region its dictionary is named after)`.
const LANGUAGES: &[(&str, &str)] = &[
    ("af", "af-ZA"),
    ("bg", "bg-BG"),
    ("ca", "ca-ES"),
    ("cs", "cs-CZ"),
    ("cy", "cy-GB"),
    ("da", "da-DK"),
    ("de", "de-DE"),
    ("de-DE", "de-DE"),
    ("el", "el-GR"),
    ("en", "en-US"),
    ("en-AU", "en-AU"),
    ("en-CA", "en-CA"),
    ("en-GB", "en-GB"),
    ("en-GB-oxendict", "en-GB-oxendict"),
    ("en-US", "en-US"),
    ("es", "es-ES"),
    ("es-419", "es-ES"),
    ("es-AR", "es-ES"),
    ("es-ES", "es-ES"),
    ("es-MX", "es-ES"),
    ("es-US", "es-ES"),
    ("et", "et-EE"),
    ("fa", "fa-IR"),
    ("fo", "fo-FO"),
    ("fr", "fr-FR"),
    ("fr-FR", "fr-FR"),
    ("he", "he-IL"),
    ("hi", "hi-IN"),
    ("hr", "hr-HR"),
    ("hu", "hu-HU"),
    ("hy", "hy"),
    ("id", "id-ID"),
    ("it", "it-IT"),
    ("it-IT", "it-IT"),
    ("ko", "ko"),
    ("lt", "lt-LT"),
    ("lv", "lv-LV"),
    ("nb", "nb-NO"),
    ("nl", "nl-NL"),
    ("pl", "pl-PL"),
    ("pt", "pt-BR"),
    ("pt-BR", "pt-BR"),
    ("pt-PT", "pt-PT"),
    ("ro", "ro-RO"),
    ("ru", "ru-RU"),
    ("sh", "sh"),
    ("sk", "sk-SK"),
    ("sl", "sl-SI"),
    ("sq", "sq"),
    ("sr", "sr"),
    ("sv", "sv-SE"),
    ("ta", "ta-IN"),
    ("tg", "tg-TG"),
    ("tr", "tr-TR"),
    ("uk", "uk-UA"),
    ("vi", "vi-VN"),
];

/// Dictionaries Chromium has re-issued; every other one is at [`DEFAULT_VERSION`].
const VERSIONS: &[(&str, &str)] = &[
    ("tr-TR", "-4-0"),
    ("tg-TG", "-5-0"),
    ("cy-GB", "-1-0"),
    ("hy", "-1-0"),
    ("sh", "-4-0"),
    ("sr", "-4-0"),
    ("fa-IR", "-9-0"),
    ("en-AU", "-10-1"),
    ("en-CA", "-10-1"),
    ("en-GB", "-10-1"),
    ("en-GB-oxendict", "-10-1"),
    ("en-US", "-10-1"),
    ("uk-UA", "-5-0"),
];

/// The first version with a checksum in the file.
const DEFAULT_VERSION: &str = "-3-0";

/// The language-region a dictionary is named after, for a language Chromium lists either
/// way ("pt" or "pt-BR", "af" or "af-ZA").
fn region(language: &str) -> Option<&'static str> {
    LANGUAGES
        .iter()
        .find(|(lang, _)| *lang == language)
        .or_else(|| LANGUAGES.iter().find(|(_, region)| *region == language))
        .map(|&(_, region)| region)
}

/// Chromium's file name for a language's dictionary, e.g. "en-US" -> Some("en-US-10-1.bdic"),
/// "de-DE" -> Some("de-DE-3-0.bdic"); None for a language Chromium's spellchecker does not
/// support.
pub fn bdic_file_name(language: &str) -> Option<String> {
    let region = region(language)?;
    let version = VERSIONS
        .iter()
        .find(|(lang, _)| *lang == region)
        .map_or(DEFAULT_VERSION, |&(_, version)| version);
    Some(format!("{region}{version}.bdic"))
}

/// The hunspell base name for a Chromium spellcheck language, "en-US" -> "en_US".
///
/// A bare language Chromium maps to a region takes that region ("de" -> "de_DE"); only the
/// first `-` becomes `_` ("en-GB-oxendict" -> "en_GB-oxendict").
pub fn hunspell_name(language: &str) -> String {
    region(language).unwrap_or(language).replacen('-', "_", 1)
}

import Foundation

#if !canImport(Darwin)
/// `String(localized:)`, which SwiftData apps use for the text they store and show, and which
/// Linux Foundation lacks: the key is looked up in the bundle's `Localizable` strings (or
/// `table`), and is the text itself where no translation exists — interpolations included.
///
/// ```swift
/// let title = String(localized: "Trip to \(city)", comment: "A new trip's title")
/// ```
///
/// Apple's `String.LocalizationValue` keys (which keep interpolated values apart for formatting
/// per locale) do not exist here: the key is the interpolated text, so a translation must be
/// written for that text.
extension String {
    /// The translation of `key` from `table` (default `Localizable`) in `bundle` (default the
    /// main bundle), or `defaultValue` (default `key`) where there is none. `locale` and
    /// `comment` are accepted for the same call to compile, and not used.
    public init(localized key: String, defaultValue: String? = nil, table: String? = nil, bundle: Bundle? = nil, locale: Locale = .current, comment: StaticString? = nil) {
        self = (bundle ?? .main).localizedString(forKey: key, value: defaultValue ?? key, table: table)
    }
}
#endif

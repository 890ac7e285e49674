import Foundation

#if !canImport(Darwin)
/// The folder statics of Foundation's `URL` that SwiftData apps use to place their stores
/// (`URL.applicationSupportDirectory.appending(path: "Trips.store")`), which Linux Foundation
/// lacks. Each is the folder Linux Foundation's own `FileManager.url(for:in:…)` names — the XDG
/// locations: application support is `$XDG_DATA_HOME` (by default `~/.local/share`), caches
/// `$XDG_CACHE_HOME` (`~/.cache`), documents `~/Documents`, and so on. As on macOS, these are
/// shared by every program of the user: put an application's files in a folder of its own.
///
/// ```swift
/// let url = URL.applicationSupportDirectory.appending(path: "MyApp/Trips.store")
/// let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
/// ```
///
/// The folders are not created; the store creates its file's folder when it creates the file.
extension URL {
    /// `$XDG_DATA_HOME`, by default `~/.local/share`.
    public static var applicationSupportDirectory: URL { folder(.applicationSupportDirectory, else: ".local/share") }
    /// `$XDG_CACHE_HOME`, by default `~/.cache`.
    public static var cachesDirectory: URL { folder(.cachesDirectory, else: ".cache") }
    /// The user's documents folder, by default `~/Documents`.
    public static var documentsDirectory: URL { folder(.documentDirectory, else: "Documents") }
    /// The user's downloads folder, by default `~/Downloads`.
    public static var downloadsDirectory: URL { folder(.downloadsDirectory, else: "Downloads") }
    /// The user's desktop folder, by default `~/Desktop`.
    public static var desktopDirectory: URL { folder(.desktopDirectory, else: "Desktop") }
    /// The user's movies folder, by default `~/Videos`.
    public static var moviesDirectory: URL { folder(.moviesDirectory, else: "Videos") }
    /// The user's music folder, by default `~/Music`.
    public static var musicDirectory: URL { folder(.musicDirectory, else: "Music") }
    /// The user's pictures folder, by default `~/Pictures`.
    public static var picturesDirectory: URL { folder(.picturesDirectory, else: "Pictures") }
    /// The user's public folder, by default `~/Public`.
    public static var sharedPublicDirectory: URL { folder(.sharedPublicDirectory, else: "Public") }
    /// The user's trash folder, by default `~/.Trash`.
    public static var trashDirectory: URL { folder(.trashDirectory, else: ".Trash") }
    /// There is no Library folder off Apple platforms: the same as ``applicationSupportDirectory``.
    public static var libraryDirectory: URL { applicationSupportDirectory }

    private static func folder(_ directory: FileManager.SearchPathDirectory, else pathInHome: String) -> URL {
        if let url = try? FileManager.default.url(for: directory, in: .userDomainMask, appropriateFor: nil, create: false) {
            return url
        }
        return URL.homeDirectory.appendingPathComponent(pathInHome, isDirectory: true)
    }
}
#endif

import Foundation

/// Where and how a container stores data: a file or memory, writable or read-only, and which
/// models go there.
///
/// ```swift
/// let onDisk = ModelConfiguration(url: URL(filePath: "/var/lib/myapp/trips.store"))
/// let scratch = ModelConfiguration(isStoredInMemoryOnly: true)
/// let archive = ModelConfiguration("Archive", schema: Schema([Person.self, Address.self]),
///                                  url: archiveURL, allowsSave: false)
/// ```
///
/// Without a URL, the store is `<name>.store` in the application's data folder: on Linux
/// `$XDG_DATA_HOME/<executable name>/` (by default `~/.local/share/<executable name>/`), elsewhere
/// the user's Application Support folder.
///
/// A `ModelConfiguration` is a ``DataStoreConfiguration`` whose store is the SQLite store
/// (``DefaultStore``); custom stores' configurations can be mixed with it in one container.
public struct ModelConfiguration: DataStoreConfiguration, Identifiable, Sendable, CustomStringConvertible {
    /// The SQLite store.
    public typealias Store = DefaultStore

    /// The configuration's name; also the default file name.
    public let name: String
    /// The models stored with this configuration, or `nil` for every model of the container not
    /// claimed by another configuration.
    public var schema: Schema?
    /// The store file (`/dev/null` for in-memory stores).
    public let url: URL
    /// Whether data is kept in memory only and lost when the container goes away.
    public let isStoredInMemoryOnly: Bool
    /// Whether contexts may save to this store. `false` opens the file read-only.
    public let allowsSave: Bool
    /// The CloudKit container identifier, if any (accepted for source compatibility; there is no
    /// CloudKit sync off Apple platforms).
    public let cloudKitContainerIdentifier: String?
    /// The app group identifier, if any (accepted for source compatibility).
    public let groupAppContainerIdentifier: String?
    /// The app group the store would live in on Apple platforms (accepted for source
    /// compatibility; there are no app groups here, and the store's place is ``url``).
    public let groupContainer: GroupContainer
    /// The CloudKit database the store would sync with on Apple platforms (accepted for source
    /// compatibility; stores are never synced here).
    public let cloudKitDatabase: CloudKitDatabase

    /// Whether saves are recorded in the store's history (always, as SwiftData does). Only the
    /// benchmarks turn it off, to measure in one run what history costs a save.
    @_spi(Benchmarking) public var recordsHistory = true
    /// Which entities keep an owner beside each row, so that one store holds many users' data
    /// apart (see ``OwnedRows``); `nil`, the default: rows have no owner.
    ///
    /// ```swift
    /// var configuration = ModelConfiguration(url: url)
    /// configuration.ownedRows = .allEntities()
    /// ```
    public var ownedRows: OwnedRows?
    /// Warnings of relationships loaded model by model, and a log of slow queries with their
    /// plans (see ``QueryInsight``).
    ///
    /// ```swift
    /// var configuration = ModelConfiguration(url: url)
    /// configuration.queryInsight.slowQueryThreshold = .milliseconds(50)
    /// ```
    public var queryInsight = QueryInsight()

    /// The configuration's name identifies it.
    public var id: String { name }

    /// A configuration whose file is in the default location, or in memory.
    public init(
        _ name: String? = nil,
        schema: Schema? = nil,
        isStoredInMemoryOnly: Bool = false,
        allowsSave: Bool = true,
        groupContainer: GroupContainer = .automatic,
        cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        let name = name ?? "default"
        self.name = name
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.url = isStoredInMemoryOnly ? URL(fileURLWithPath: "/dev/null") : ModelConfiguration.defaultDirectory.appendingPathComponent("\(name).store")
        self.cloudKitContainerIdentifier = cloudKitDatabase.identifier
        self.groupAppContainerIdentifier = groupContainer.identifier
        self.groupContainer = groupContainer
        self.cloudKitDatabase = cloudKitDatabase
    }

    /// A configuration whose store is the file at `url`.
    public init(
        _ name: String? = nil,
        schema: Schema? = nil,
        url: URL,
        allowsSave: Bool = true,
        cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        self.name = name ?? url.deletingPathExtension().lastPathComponent
        self.schema = schema
        self.url = url
        self.isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
        self.cloudKitContainerIdentifier = cloudKitDatabase.identifier
        self.groupAppContainerIdentifier = nil
        self.groupContainer = .automatic
        self.cloudKitDatabase = cloudKitDatabase
    }

    /// A configuration for the given models.
    public init(for firstType: any PersistentModel.Type, _ moreTypes: any PersistentModel.Type..., isStoredInMemoryOnly: Bool = false) {
        self.init(schema: Schema([firstType] + moreTypes), isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    /// The folder default stores live in. On Linux, when neither `XDG_DATA_HOME` nor `HOME` is
    /// set to an absolute path, there is none: this is then a folder under
    /// `/nonexistent`, and a container refuses a configuration placed there — never a shared
    /// temporary folder, which cleaners empty and other users can prepare in advance.
    public static var defaultDirectory: URL {
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "app").lastPathComponent
        #if os(Linux) || os(Android) || os(FreeBSD) || os(OpenBSD)
        return (dataHome ?? unavailableDirectory).appendingPathComponent(executable, isDirectory: true)
        #else
        let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        return base.appendingPathComponent(executable, isDirectory: true)
        #endif
    }

    /// The user's data folder, `$XDG_DATA_HOME` or `$HOME/.local/share`; `nil` without either
    /// (as absolute paths; the XDG specification ignores relative ones).
    static var dataHome: URL? {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true)
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share", isDirectory: true)
    }

    /// Where ``defaultDirectory`` points when there is no data folder.
    static let unavailableDirectory = URL(fileURLWithPath: "/nonexistent/openswiftdata-no-data-folder", isDirectory: true)

    /// Refuses a default-located store when there is no data folder to put it in.
    public func validate() throws {
        guard !isStoredInMemoryOnly, url.path.hasPrefix(Self.unavailableDirectory.path + "/") else { return }
        throw SwiftDataError(.loadIssueModelContainer, "the configuration '\(name)' has no URL, and there is no data folder for its default place: neither XDG_DATA_HOME nor HOME is set to an absolute path. Set one of them, or give the configuration a url: (a temporary folder is not used: it is emptied by cleaners and shared with other users)")
    }

    /// Whether both sides describe the same thing (see the type's documentation for what is compared).
    public static func == (lhs: ModelConfiguration, rhs: ModelConfiguration) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.isStoredInMemoryOnly == rhs.isStoredInMemoryOnly
            && lhs.allowsSave == rhs.allowsSave && lhs.schema == rhs.schema
    }

    /// Hashes the components `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
    }

    /// A readable description, for logs and debugging.
    public var description: String {
        isStoredInMemoryOnly ? "ModelConfiguration(\(name), in memory)" : "ModelConfiguration(\(name), \(url.path))"
    }

    /// Where an app-group store would live (accepted for source compatibility).
    public struct GroupContainer: Hashable, Sendable {
        private let kind: String
        let identifier: String?
        /// The default.
        public static let automatic = GroupContainer(kind: "automatic", identifier: nil)
        /// No app group.
        public static let none = GroupContainer(kind: "none", identifier: nil)
        /// A named app group.
        public static func identifier(_ groupName: String) -> GroupContainer { GroupContainer(kind: "identifier", identifier: groupName) }
    }

    /// Which CloudKit database would sync the store (accepted for source compatibility; stores are
    /// never synced here).
    public struct CloudKitDatabase: Hashable, Sendable {
        private let kind: String
        let identifier: String?
        /// The default.
        public static let automatic = CloudKitDatabase(kind: "automatic", identifier: nil)
        /// No sync.
        public static let none = CloudKitDatabase(kind: "none", identifier: nil)
        /// A private CloudKit database.
        public static func `private`(_ containerIdentifier: String) -> CloudKitDatabase { CloudKitDatabase(kind: "private", identifier: containerIdentifier) }
    }
}

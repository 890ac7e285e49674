import Foundation
import OpenSwiftData

/// Describes a ``JSONStore``: the file that holds every model, as a JSON array of snapshots.
///
/// ```swift
/// let configuration = JSONStoreConfiguration(name: "Trips", fileURL: URL(filePath: "trips.json"))
/// let container = try ModelContainer(for: Trip.self, configurations: configuration)
/// ```
public struct JSONStoreConfiguration: DataStoreConfiguration {
    public typealias Store = JSONStore

    /// The configuration's name.
    public var name: String
    /// The models the store holds (the container fills it in when `nil`).
    public var schema: Schema?
    /// The JSON file; created by the first save.
    public var fileURL: URL

    /// A configuration for the file at `fileURL`.
    public init(name: String = "JSONStore", schema: Schema? = nil, fileURL: URL) {
        self.name = name
        self.schema = schema
        self.fileURL = fileURL
    }

    /// Configurations are the same store when they name the same file.
    public static func == (lhs: JSONStoreConfiguration, rhs: JSONStoreConfiguration) -> Bool {
        lhs.name == rhs.name && lhs.fileURL == rhs.fileURL
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(fileURL)
    }
}

import Foundation

/// Describes a store to open: `ModelContainer(for:configurations:)` takes any mix of them and
/// opens each configuration's ``Store``.
///
/// ```swift
/// struct JSONStoreConfiguration: DataStoreConfiguration {
///     typealias Store = JSONStore
///     var name: String
///     var schema: Schema?
///     var fileURL: URL
/// }
/// let container = try ModelContainer(for: Trip.self, configurations: JSONStoreConfiguration(name: "Trips", fileURL: url))
/// ```
///
/// ``ModelConfiguration`` is one: its store is the SQLite store (``DefaultStore``).
public protocol DataStoreConfiguration: Hashable {
    /// The store this configuration opens.
    associatedtype Store: DataStore where Store.Configuration == Self

    /// The configuration's name; names are unique within a container.
    var name: String { get }
    /// The models this configuration's store holds; `nil` for every model of the container not
    /// claimed by another configuration.
    var schema: Schema? { get set }

    /// Checks the configuration before the store opens; throw to refuse it.
    func validate() throws
}

extension DataStoreConfiguration {
    public func validate() throws {}
}

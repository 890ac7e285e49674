import Foundation

extension CoreDataModelMap {
    /// The map of a file looked at through its own model (``StoreBrowser``): entity numbers and
    /// each entity's properties in history's bit order, enough to read history. Nothing is
    /// checked against models: there are none. `numbers`: `Z_PRIMARYKEY`'s, Core Data's own
    /// entities (history's) included.
    init(browsing catalog: StoreCatalog, numbers: [String: Int64], storeIdentifier: String) {
        var properties: [String: [String]] = [:]
        for entity in catalog.entities {
            properties[entity.name] = (entity.rowAttributes.map(\.name) + entity.rowRelationships.map(\.name)).sorted()
        }
        renames = [:]
        entityNumbers = numbers
        entityNames = Dictionary(numbers.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        tableEntityNumbers = [:]
        joinTables = [:]
        composites = [:]
        externalData = []
        historyProperties = properties
        self.storeIdentifier = storeIdentifier
        hasHistory = true
    }
}

import Foundation

/// What the context asks of a store, met for a ``RowStore`` by turning its rows into models here,
/// above the seam (``Materializer``): the store itself never sees a context.
extension RowStore {
    var rowStore: (any RowStore)? { self }

    func fetch<T>(_ request: StoreFetch<T>, in context: ModelContext) throws -> [AnyObject] {
        let materializer = Materializer(context: context, shape: rowShape(request.layout, slots: request.slots), storeIdentifier: identifier)
        // Collected as class references: appending to a `[T]` in this unspecialised generic
        // function would look up `Array<T>`'s metadata for every row.
        var loaded: [AnyObject] = []
        try fetchRows(request) { row in loaded.append(try materializer.model(row)) }
        return loaded
    }

    func fetchCount<T>(_ request: StoreFetch<T>, in context: ModelContext) throws -> Int {
        try countRows(request)
    }

    func fetchKeys<T>(_ request: StoreFetch<T>, in context: ModelContext) throws -> [Int64] {
        try rowKeys(request)
    }

    func fetchIdentifiers<T>(_ request: StoreFetch<T>, in context: ModelContext) throws -> [PersistentIdentifier] {
        try rowIdentifiers(request)
    }

    func loadModels(_ layout: ModelLayout, keys: [Int64], in context: ModelContext) throws -> [any PersistentModel] {
        let materializer = Materializer(context: context, shape: rowShape(layout, slots: nil), storeIdentifier: identifier)
        var loaded: [any PersistentModel] = []
        loaded.reserveCapacity(keys.count)
        try loadRows(layout, keys: keys) { row in loaded.append(try materializer.model(row)) }
        return loaded
    }

    func loadValues(of data: BackingData, primaryKey: Int64) throws -> Bool {
        let layout = data.layout
        return try loadRow(layout, key: primaryKey) { row in
            try Materializer.fill(data, from: row, offset: 0, slots: layout.storedSlots, mode: .unloaded)
        }
    }

    func loadRelated(_ property: PropertyLayout, of owner: ModelLayout, ownerKeys: [Int64], in context: ModelContext) throws -> [Int64: [any PersistentModel]] {
        guard let destination = property.relationship?.destination else { return [:] }
        let materializer = Materializer(context: context, shape: rowShape(destination, slots: nil), storeIdentifier: identifier)
        // Rows arrive one owner at a time.
        var grouped: [Int64: [any PersistentModel]] = [:]
        var currentOwner: Int64?
        var current: [any PersistentModel] = []
        try loadRelatedRows(property, of: owner, ownerKeys: ownerKeys) { row, ownerKey in
            let model = try materializer.model(row)
            if ownerKey != currentOwner {
                if let currentOwner { grouped[currentOwner] = current }
                currentOwner = ownerKey
                current = []
            }
            current.append(model)
        }
        if let currentOwner { grouped[currentOwner] = current }
        return grouped
    }
}

import Foundation

/// One entity's identity map: primary key to the one instance of that row in the context.
///
/// The map does not keep models alive: entries hold them `unowned`, and a model's backing data
/// removes its entry when it is deinitialised (the model is going away). `unowned` rather than
/// `weak` spares every loaded model a side table and the atomic traffic of weak references.
///
/// Primary keys are allocated densely from 1, so entries live in pages of 4,096 indexed by key
/// (no hashing); keys far beyond that range go to a dictionary.
final class EntityRegistry {
    private struct Entry {
        unowned let model: any PersistentModel
        /// The backing data that registered the entry, so only it removes the entry.
        let owner: ObjectIdentifier
    }

    /// Held separately from the owners so that finding and checking a slot reads plain integers
    /// and never copies (and reference-counts) the unowned model.
    private struct UnownedModel {
        unowned let model: any PersistentModel
    }

    private final class Page {
        /// The registering backing data's identity per slot; 0 when the slot is empty.
        @exclusivity(unchecked) var owners = ContiguousArray<UInt>(repeating: 0, count: EntityRegistry.pageSize)
        /// The models, `nil` where `owners` is 0. Memory of its own rather than an array: an
        /// array's deinit destroys each of the 4,096 entries through the element type's value
        /// witness (about 70 instructions each); this destroys only the entries in use, and an
        /// emptied registry has none.
        let models: UnsafeMutablePointer<UnownedModel?>
        /// Slots in use: a page that empties is let go (see `emptied`).
        @exclusivity(unchecked) var live = 0

        init() {
            models = .allocate(capacity: EntityRegistry.pageSize)
            models.initialize(repeating: nil, count: EntityRegistry.pageSize)
        }

        deinit {
            for slot in 0..<EntityRegistry.pageSize where owners[slot] != 0 {
                (models + slot).deinitialize(count: 1)
            }
            models.deallocate()
        }
    }

    private static let pageShift = 12
    private static let pageSize = 1 << pageShift
    /// Keys below this use pages (268 million rows); larger or negative ones the dictionary.
    private static let pagedLimit: Int64 = 1 << 28

    // Exclusivity is not checked dynamically: the registry is used only on its context's thread,
    // and it is touched for every model loaded and released.
    @exclusivity(unchecked) private var pages: [Page?] = []
    /// One emptied page kept for the next page needed: a context that loads and lets go of the
    /// models of one page in turn does not make and free 100 KB each time.
    @exclusivity(unchecked) private var spare: Page?
    @exclusivity(unchecked) private var overflow: [Int64: Entry] = [:]
    @exclusivity(unchecked) private(set) var count = 0

    private func locate(_ key: Int64) -> (page: Int, slot: Int)? {
        guard key >= 0, key < EntityRegistry.pagedLimit else { return nil }
        return (Int(key) >> EntityRegistry.pageShift, Int(key) & (EntityRegistry.pageSize - 1))
    }

    private func page(_ index: Int) -> Page? {
        index < pages.count ? pages[index] : nil
    }

    /// The page at `index`, made (or the spare taken) if there is none.
    private func page(forInserting index: Int) -> Page {
        if index < pages.count, let existing = pages[index] { return existing }
        while pages.count <= index { pages.append(nil) }
        let made = spare ?? Page()
        spare = nil
        pages[index] = made
        return made
    }

    func model(_ primaryKey: Int64) -> (any PersistentModel)? {
        if let (index, slot) = locate(primaryKey) {
            guard let page = page(index), page.owners[slot] != 0 else { return nil }
            return page.models[slot]?.model
        }
        return overflow[primaryKey]?.model
    }

    func insert(_ model: any PersistentModel, primaryKey: Int64) {
        insert(model, primaryKey: primaryKey, data: model.persistentBackingData)
    }

    func insert(_ model: any PersistentModel, primaryKey: Int64, data: BackingData) {
        data.registeredIn = self
        let owner = ObjectIdentifier(data)
        if let (index, slot) = locate(primaryKey) {
            let target = page(forInserting: index)
            if target.owners[slot] == 0 {
                count += 1
                target.live += 1
                target.owners[slot] = UInt(bitPattern: owner)
                // The slot held nothing: initialised, with no old value to destroy.
                (target.models + slot).initialize(to: UnownedModel(model: model))
                return
            }
            target.owners[slot] = UInt(bitPattern: owner)
            target.models[slot] = UnownedModel(model: model)
        } else {
            if overflow[primaryKey] == nil { count += 1 }
            overflow[primaryKey] = Entry(model: model, owner: owner)
        }
    }

    func remove(_ primaryKey: Int64) {
        if let (index, slot) = locate(primaryKey) {
            guard let target = page(index), target.owners[slot] != 0 else { return }
            target.owners[slot] = 0
            target.models[slot] = nil
            count -= 1
            emptied(index, target)
        } else if overflow.removeValue(forKey: primaryKey) != nil {
            count -= 1
        }
    }

    /// Removes the entry of a backing data being deinitialised, if it is still that one's.
    func remove(_ primaryKey: Int64, owner: BackingData) {
        let owner = ObjectIdentifier(owner)
        if let (index, slot) = locate(primaryKey) {
            guard let target = page(index), target.owners[slot] == UInt(bitPattern: owner) else { return }
            target.owners[slot] = 0
            target.models[slot] = nil
            count -= 1
            emptied(index, target)
        } else if overflow[primaryKey]?.owner == owner {
            overflow.removeValue(forKey: primaryKey)
            count -= 1
        }
    }

    /// After a slot of `page` (at `index`) was cleared: a page with no entry left is let go (kept
    /// as the spare if there is none). Without this, a context that imports a million rows kept
    /// a page per 4,096 keys it ever held — about 30 MB — until it went away.
    @inline(__always)
    private func emptied(_ index: Int, _ page: Page) {
        page.live -= 1
        guard page.live == 0 else { return }
        pages[index] = nil
        if spare == nil { spare = page }
    }

    /// Pages holding entries, and the spare: what the map's memory grows with.
    var allocatedPages: Int {
        pages.reduce(0) { $0 + ($1 == nil ? 0 : 1) } + (spare == nil ? 0 : 1)
    }

    var liveModels: [any PersistentModel] {
        var models: [any PersistentModel] = []
        for page in pages {
            guard let page else { continue }
            for (slot, owner) in page.owners.enumerated() where owner != 0 {
                if let entry = page.models[slot] { models.append(entry.model) }
            }
        }
        for entry in overflow.values { models.append(entry.model) }
        return models
    }
}

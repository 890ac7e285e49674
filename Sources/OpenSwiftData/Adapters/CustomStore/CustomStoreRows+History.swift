import Foundation

/// A custom store's own history (``HistoryProviding``), passed through to the context unchanged.
extension CustomStoreRows: HistorySource {
    func providedHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T]? {
        guard let provider = store as? any HistoryProviding else { return nil }
        return try locked { try providerHistory(provider, descriptor) }
    }

    func deleteProvidedHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> Bool {
        guard let provider = store as? any HistoryProviding else { return false }
        return try locked { try deleteProviderHistory(provider, descriptor) }
    }
}

/// The provider's transactions, if its history is of type `T`.
private func providerHistory<P: HistoryProviding, T: HistoryTransaction>(_ provider: P, _ descriptor: HistoryDescriptor<T>) throws -> [T]? {
    guard let own = descriptor as? HistoryDescriptor<P.HistoryType> else { return nil }
    return try provider.fetchHistory(own) as? [T]
}

private func deleteProviderHistory<P: HistoryProviding, T: HistoryTransaction>(_ provider: P, _ descriptor: HistoryDescriptor<T>) throws -> Bool {
    guard let own = descriptor as? HistoryDescriptor<P.HistoryType> else { return false }
    try provider.deleteHistory(own)
    return true
}

import Foundation

/// Passes a prepared backing data to the `init(backingData:)` about to run on this thread.
///
/// `@Model`'s `init(backingData:)` first initialises its `_$backingData` property with `_make(for:)`
/// (a property default) and then replaces it with the argument. Offering the argument here lets
/// `_make` return it, so no second backing data (with its slot array and observation registrar)
/// is built and thrown away per loaded model. The offer is taken only by the model type it is for
/// (or, for a subclass instance, by the superclass whose `_$backingData` it fills), and withdrawn
/// after the initialiser returns.
enum BackingDataHandOff {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static func offer(_ data: BackingData) {
        pthread_setspecific(key, Unmanaged.passUnretained(data).toOpaque())
    }

    static func withdraw() {
        pthread_setspecific(key, nil)
    }

    static func take(for type: any PersistentModel.Type) -> BackingData? {
        guard let raw = pthread_getspecific(key) else { return nil }
        let data = Unmanaged<BackingData>.fromOpaque(raw).takeUnretainedValue()
        guard data.layout.isKind(of: type) else { return nil }
        pthread_setspecific(key, nil)
        return data
    }
}

import CSQLite
import Foundation

/// `Data` attributes declared with `.externalStorage` in a Core Data file. Core Data keeps such a
/// value behind a marker byte: `1` and the bytes themselves (stored in the row), or `2` and the
/// name of a file (a UUID) in the folder `.<store name>_SUPPORT/_EXTERNAL_DATA/` beside the store
/// file, where it moves large values. This form is not in Apple's documentation; it is how Core
/// Data's files are described by those who read them, so anything else is refused with an error
/// rather than read as data.
///
/// Two SQL functions keep one value per attribute for queries and saves:
/// `osd_external_data(column, folder)` reads either form as the bytes, and
/// `osd_external_data_inline(value)` writes bytes in the row's form (Core Data reads values kept
/// in the row whatever their size).
enum CoreDataExternalData {
    static let inlineMarker: UInt8 = 1
    static let fileMarker: UInt8 = 2

    /// The folder of a store file's externally stored values.
    static func folder(ofStoreAt path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let name = url.deletingPathExtension().lastPathComponent
        return url.deletingLastPathComponent().appendingPathComponent(".\(name)_SUPPORT/_EXTERNAL_DATA", isDirectory: true).path
    }

    /// Why a stored value cannot be read.
    struct Unreadable: Error {
        let reason: String
    }

    /// The bytes a stored value stands for, or why it cannot be read.
    static func bytes(_ stored: Data, folder: String) -> Result<Data, Unreadable> {
        guard let marker = stored.first else { return .failure(Unreadable(reason: "an external-storage value is empty, without Core Data's marker byte")) }
        let rest = stored.dropFirst()
        switch marker {
        case inlineMarker:
            return .success(Data(rest))
        case fileMarker:
            let name = String(decoding: rest.prefix { $0 != 0 }, as: UTF8.self)
            guard UUID(uuidString: name) != nil else { return .failure(Unreadable(reason: "an external-storage value refers to \(name.prefix(60)), which is not a file name Core Data gives")) }
            let path = (folder as NSString).appendingPathComponent(name)
            return contents(ofFileAt: path, inside: folder)
        default:
            return .failure(Unreadable(reason: "an external-storage value starts with the byte \(marker), neither 1 (in the row) nor 2 (in a file)"))
        }
    }

    static func register(on db: OpaquePointer) throws {
        // Direct only: a crafted file's views and triggers must not make it read files.
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY
        for (name, arguments, function) in [("osd_external_data", Int32(2), readFunction), ("osd_external_data_inline", 1, inlineFunction)] {
            let status = sqlite3_create_function_v2(db, name, arguments, flags, nil, function, nil, nil, nil)
            guard status == SQLITE_OK else { throw SQLiteError(code: status, message: "cannot register the SQL function \(name)", sql: nil) }
        }
    }

    private static func blob(_ argument: OpaquePointer?) -> Data? {
        guard let argument, sqlite3_value_type(argument) != SQLITE_NULL else { return nil }
        let count = Int(sqlite3_value_bytes(argument))
        return sqlite3_value_blob(argument).map { Data(bytes: $0, count: count) } ?? Data()
    }

    private static func result(_ context: OpaquePointer?, _ data: Data) {
        // A non-NULL pointer even for no bytes, or SQLite would give NULL.
        if data.isEmpty { return sqlite3_result_zeroblob(context, 0) }
        data.withUnsafeBytes { sqlite3_result_blob64(context, $0.baseAddress, sqlite3_uint64($0.count), SQLiteStatement.transient) }
    }

    private static let readFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let stored = CoreDataExternalData.blob(arguments?[0]) else { return sqlite3_result_null(context) }
        switch CoreDataExternalData.bytes(stored, folder: SQLiteFunctions.text(arguments, 1) ?? "") {
        case .success(let data): CoreDataExternalData.result(context, data)
        case .failure(let unreadable): sqlite3_result_error(context, unreadable.reason, -1)
        }
    }

    /// The bytes of the regular file at `path`, which must be in `folder` itself: a file or a
    /// folder of the store's that is a symbolic link out of it (a crafted store pointing at
    /// another file of the user's), or a file that is not a regular one (a FIFO would block the
    /// read forever), is refused.
    private static func contents(ofFileAt path: String, inside folder: String) -> Result<Data, Unreadable> {
        let cannotRead = Unreadable(reason: "an external-storage value is in the file \(path), which cannot be read (copy the store's .<name>_SUPPORT folder with it)")
        // The folder as the store names it: the store's own folder resolved, the rest as written.
        let storeFolder = ((folder as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
        guard let realStoreFolder = realPath(storeFolder), let realFile = realPath(path) else { return .failure(cannotRead) }
        let support = (folder as NSString).deletingLastPathComponent
        let expected = "\(realStoreFolder)/\((support as NSString).lastPathComponent)/\((folder as NSString).lastPathComponent)/\((path as NSString).lastPathComponent)"
        guard realFile == expected else {
            return .failure(Unreadable(reason: "an external-storage value is in \(path), which leads out of the store's _EXTERNAL_DATA folder (a symbolic link, to \(realFile)); it was not read"))
        }
        var status = stat()
        guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            return .failure(Unreadable(reason: "an external-storage value is in \(path), which is not a regular file; it was not read"))
        }
        guard let data = FileManager.default.contents(atPath: path) else { return .failure(cannotRead) }
        return .success(data)
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static let inlineFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let data = CoreDataExternalData.blob(arguments?[0]) else { return sqlite3_result_null(context) }
        CoreDataExternalData.result(context, Data([CoreDataExternalData.inlineMarker]) + data)
    }
}

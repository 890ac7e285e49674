import Foundation

extension ModelContext {
    /// Writes the saved value of a `Data` attribute to a file a piece at a time, without reading
    /// the whole value into memory (a scan or a video kept with `@Attribute(.externalStorage)`),
    /// and returns its size. The value is the one in the store, not unsaved changes.
    ///
    /// ```swift
    /// let size = try context.writeSavedBytes(of: receipt, \.image, to: URL(fileURLWithPath: "scan.pdf"))
    /// ```
    ///
    /// Throws where the model is not saved or its row is gone, and where the file cannot be written.
    @discardableResult
    public func writeSavedBytes<M: PersistentModel>(of model: M, _ keyPath: KeyPath<M, Data>, to url: URL) throws -> Int64 {
        try writeSavedBytes(of: model, property: keyPath, to: url)
    }

    /// Writes the saved value of an optional `Data` attribute to a file a piece at a time (see
    /// the overload for `Data`); an attribute holding `nil` writes an empty file.
    ///
    /// ```swift
    /// try context.writeSavedBytes(of: photo, \.original, to: destination)
    /// ```
    @discardableResult
    public func writeSavedBytes<M: PersistentModel>(of model: M, _ keyPath: KeyPath<M, Data?>, to url: URL) throws -> Int64 {
        try writeSavedBytes(of: model, property: keyPath, to: url)
    }

    private func writeSavedBytes<M: PersistentModel>(of model: M, property keyPath: AnyKeyPath, to url: URL) throws -> Int64 {
        let layout = model.persistentBackingData.layout
        guard let property = KeyPathResolver.property(keyPath, of: layout) else {
            throw SwiftDataError(.unsupportedKeyPath, "the key path does not name a persisted attribute of \(layout.entityName)")
        }
        let id = model.persistentModelID
        let missing = SwiftDataError(.modelNotFound, "\(layout.entityName) \(id) has no saved row to read \(property.name) from; save it first")
        guard id.primaryKey != nil, let first = try storedBytes(of: id, property.name, offset: 0, length: Self.savedBytesPiece) else { throw missing }
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw SwiftDataError(.storeIO, "cannot create the file \(url.path) for \(layout.entityName).\(property.name)")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var piece = first.bytes, written: Int64 = 0
        while !piece.isEmpty {
            try handle.write(contentsOf: piece)
            written += Int64(piece.count)
            guard written < first.total else { break }
            // Changed or deleted meanwhile: what was read is not one value.
            guard let next = try storedBytes(of: id, property.name, offset: written, length: Self.savedBytesPiece), next.total == first.total else {
                throw SwiftDataError(.storeIO, "\(layout.entityName).\(property.name) changed while it was written to \(url.path); write it again")
            }
            piece = next.bytes
        }
        return written
    }

    /// How much of a value is read at a time.
    private static let savedBytesPiece = 1 << 20
}

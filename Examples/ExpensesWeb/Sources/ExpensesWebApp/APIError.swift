#if Studio
import ExpensesCore
import Foundation
import Hummingbird

/// An error answered as JSON: `{"error": "…", "field": "amount"}` with its status.
public struct APIError: HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public var message: String
    /// The input field the error is about, if any.
    public var field: String?

    public init(_ status: HTTPResponse.Status, _ message: String, field: String? = nil) {
        self.status = status
        self.message = message
        self.field = field
    }

    /// Bad input (400), or a clash with existing data (409).
    init(_ error: ExpenseInputError) {
        self.init(error.isConflict ? .conflict : .badRequest, error.message, field: error.field)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try JSONEncoder().encode(APIErrorBody(error: message, field: field))
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// The JSON of an ``APIError``.
struct APIErrorBody: Encodable {
    let error: String
    let field: String?
}
#endif

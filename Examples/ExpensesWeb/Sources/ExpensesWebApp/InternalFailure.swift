/// A failure inside the app whose details go to the log only; ``ErrorMiddleware`` answers it
/// with a generic 500 and the request's id.
struct InternalFailure: Error, CustomStringConvertible {
    let description: String
}

#if Studio
/// The user a request is served for, in account mode: set by ``AccountsMiddleware`` for the
/// request's task, and read by ``ExpensesService/perform(_:)`` to give the request's data work a
/// context of that user's (it reads and writes only that user's rows). `nil` outside account
/// mode, where the store has one dataset.
enum RequestUser {
    @TaskLocal static var current: String?
}
#endif

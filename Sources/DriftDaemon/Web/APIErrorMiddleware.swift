import DriftCore
import DriftStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// Turns every error a route throws into the API's one error shape, with the right status.
///
/// Client mistakes keep their message; anything unexpected is logged with the request and
/// answered as `internal` without internals.
struct APIErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger
    /// The router's paths and methods: a known path asked for with another method is 405.
    var routes: RouteMethods?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            let response = try await next(request, context)
            BoxMetrics.countRequest(method: request.method.rawValue, route: context.endpointPath ?? "unmatched", status: response.status.code)
            return response
        } catch {
            var mapped = Self.map(error)
            if let error = error as? HTTPError, error.status == .notFound,
               let allowed = routes?.methods(for: request.uri.path), !allowed.isEmpty, !allowed.contains(request.method) {
                mapped = APIError(.methodNotAllowed, code: "method_not_allowed",
                                  "\(request.method) is not a method of this route; it takes \(allowed.map(\.rawValue).joined(separator: ", "))")
                mapped.headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
            }
            if mapped.status == .internalServerError {
                logger.error("request failed", metadata: ["method": "\(request.method)", "path": "\(request.uri.path)", "error": "\(error)"])
            }
            BoxMetrics.countRequest(method: request.method.rawValue, route: context.endpointPath ?? "unmatched", status: mapped.status.code)
            BoxMetrics.countError(code: mapped.code)
            return try mapped.response(from: request, context: context)
        }
    }

    static func map(_ error: any Error) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as HTTPError:
            switch error.status {
            case .notFound: return APIError(.notFound, code: "not_found", "no such route")
            case .methodNotAllowed: return APIError(.methodNotAllowed, code: "method_not_allowed", "this route does not take that method")
            case .contentTooLarge: return APIError(.contentTooLarge, code: "payload_too_large", "the body is larger than this route accepts")
            case .badRequest: return .badRequest(error.body ?? "bad request")
            default:
                if (400..<500).contains(error.status.code) {
                    return APIError(error.status, code: "bad_request", error.body ?? error.status.reasonPhrase)
                }
                return .internalError
            }
        case let error as DomainValidationError:
            return .invalid(field: error.field, problem: error.problem)
        case let error as BottleStoreError:
            switch error {
            case .notFound: return .notFound()
            case .lifecycle(_, .notCreator): return .forbidden("only the bottle's creator may do that")
            case .lifecycle(_, .alreadyOpened): return .conflict("the bottle has been opened; it can no longer be changed")
            case .lifecycle: return .conflict("the bottle cannot do that in its current state")
            case .chatClosed: return .conflict("this bottle's chat has ended")
            default: return .internalError
            }
        case let error as SurvivalError:
            return .conflict(error.description)
        case let error as PasswordHashingPool.Busy:
            return .busy(retryAfter: error.retryAfter)
        case is NIOTooManyBytesError:
            // A body collected past a limit outside ``RequestBodyReader`` (which names the limit).
            return APIError(.contentTooLarge, code: "payload_too_large", "the body is larger than this route accepts")
        default:
            return .internalError
        }
    }
}

/// The methods each route path takes, for `405 Method Not Allowed` and its `Allow` header.
/// Filled once the router has its routes.
final class RouteMethods: Sendable {
    private let routes = Mutex<[(segments: [Substring], method: HTTPRequest.Method)]>([])

    func set(_ routes: [Router<some RequestContext>.RouteDescription]) {
        let table = routes.map { (segments: $0.path.description.split(separator: "/"), method: $0.method) }
        self.routes.withLock { $0 = table }
    }

    /// The methods of the routes whose path matches `path` (parameters match any segment).
    func methods(for path: String) -> [HTTPRequest.Method] {
        let parts = path.split(separator: "/")
        let found = routes.withLock { routes in
            routes.filter { route in
                route.segments.count == parts.count && zip(route.segments, parts).allSatisfy { pattern, part in
                    pattern == part || pattern.hasPrefix(":") || pattern.hasPrefix("{") || pattern.hasPrefix("*")
                }
            }.map(\.method)
        }
        var seen: Set<String> = []
        return found.filter { seen.insert($0.rawValue).inserted }.sorted { $0.rawValue < $1.rawValue }
    }
}

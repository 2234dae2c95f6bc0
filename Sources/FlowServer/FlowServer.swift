// The one product an app depends on: flows and steps (FlowCore), pages, routes and the web layer
// (FlowWeb), the HTTP server (MicroHTTP), templates (MustacheTemplates), the stores' seam with its
// memory store (FlowStore), and the command line that serves an app with SQLite or in memory
// (FlowServerRuntime). PostgreSQL is the product FlowServerPostgres, for the apps that use it.
@_exported import FlowCore
@_exported import FlowServerRuntime
@_exported import FlowStore
@_exported import FlowWeb
@_exported import MicroHTTP
@_exported import MustacheTemplates

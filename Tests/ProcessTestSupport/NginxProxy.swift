import FlowTesting
import Foundation

/// Debian's nginx in front of FlowServer instances, with deploy/'s location rules
/// (`deploy/nginx/flowserver-locations.conf`) included as they are: the setting of the compose
/// file without a Docker engine. Its files live in a temporary folder; it stops with `stop()` or
/// when released.
public final class NginxProxy {
    /// Its port on 127.0.0.1.
    public let port: Int
    private let directory: URL
    private let process = Process()

    /// Starts nginx on a free port of 127.0.0.1 with the upstream `flowserver` made of the
    /// instances at `upstreams` (ports of 127.0.0.1, taken in turn); waits until it listens.
    public init(upstreams: [Int]) throws {
        port = freeLocalPort()
        directory = URL(fileURLWithPath: "/tmp/flowserver-nginx-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // nginx's workers run as nobody when the tests run as root.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
        let configuration = directory.appendingPathComponent("nginx.conf")
        try Self.configuration(directory: directory.path, port: port, upstreams: upstreams)
            .write(to: configuration, atomically: true, encoding: .utf8)
        let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.fileExists(atPath: $0) }
        guard let nginx else {
            throw ClusterError(message: "nginx is not installed (make test installs Debian's nginx)")
        }
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = [
            "-e", directory.appendingPathComponent("error.log").path, "-p", directory.path, "-c", configuration.path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while (try? TestConnection(port: port)) == nil {
            guard process.isRunning, Date() < deadline else {
                let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8))
                stop()
                throw ClusterError(message: "nginx did not listen within 10 s: \(log ?? "")")
            }
            usleep(50_000)
        }
    }

    /// The access log's lines so far: `METHOD URI STATUS UPSTREAM-STATUSES`, where the last field
    /// lists each instance's answer in the order nginx tried them (`503, 200`).
    public var accessLog: [String] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// Stops nginx and removes its folder.
    public func stop() {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }

    /// A whole nginx.conf: its files in `directory`, listening on `port`, deploy/'s rules included.
    private static func configuration(directory: String, port: Int, upstreams: [Int]) -> String {
        let servers = upstreams.map { "        server 127.0.0.1:\($0);\n" }.joined()
        let locations = FlowServerProcess.repository.appendingPathComponent("deploy/nginx/flowserver-locations.conf")
        return """
            daemon off;
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            events { worker_connections 256; }
            http {
                log_format upstream '$request_method $request_uri $status $upstream_status';
                access_log \(directory)/access.log upstream;
                client_body_temp_path \(directory)/body;
                proxy_temp_path \(directory)/proxy;
                fastcgi_temp_path \(directory)/fastcgi;
                uwsgi_temp_path \(directory)/uwsgi;
                scgi_temp_path \(directory)/scgi;
                upstream flowserver {
            \(servers)        keepalive 8;
                }
                server {
                    listen 127.0.0.1:\(port);
                    include \(locations.path);
                }
            }

            """
    }
}

import Foundation
import NIOConcurrencyHelpers

/// Certificates made at test time with `/usr/bin/openssl`, in a temporary folder: a test
/// authority and server certificates for 127.0.0.1 that are right, expired, not yet valid, for
/// another name, or self-signed. Only a client told to trust ``authority`` trusts any of them.
/// The folder is removed when the test process exits: a suite makes them once, for all its tests.
public struct TestCertificates: Sendable {
    /// A server certificate and its private key, as PEM files.
    public struct Identity: Sendable {
        public var certificate: String
        public var key: String
    }

    /// The folder the files are in.
    public let folder: URL
    /// The test authority's certificate (PEM): what a client must trust for the CA-signed ones.
    public let authority: String
    /// Signed by the authority, for 127.0.0.1, valid now.
    public let valid: Identity
    /// Signed by the authority, for 127.0.0.1, valid through January 2020 only.
    public let expired: Identity
    /// Self-signed, for 127.0.0.1, valid through January 2020 only: expired and untrusted both.
    public let expiredSelfSigned: Identity
    /// Signed by the authority, for 127.0.0.1, valid from 2090.
    public let notYetValid: Identity
    /// Signed by the authority, valid now, for `other.example` only.
    public let wrongName: Identity
    /// Self-signed, for 127.0.0.1, valid now.
    public let selfSigned: Identity

    /// Makes the certificates (about a second of openssl).
    public init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("reader-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        Self.removeAtExit(folder)
        let folder = self.folder
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        func openssl(_ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = arguments
            process.currentDirectoryURL = folder
            process.standardOutput = FileHandle.nullDevice
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            let said = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey:
                    "openssl \(arguments.joined(separator: " ")): \(String(decoding: said, as: UTF8.self))"])
            }
        }
        try """
            [ca]
            default_ca = test
            [test]
            dir = .
            database = index.txt
            new_certs_dir = .
            serial = serial
            default_md = sha256
            policy = anything
            copy_extensions = copy
            unique_subject = no
            [anything]
            commonName = supplied
            """.write(toFile: path("ca.cnf"), atomically: true, encoding: .utf8)
        try "".write(toFile: path("index.txt"), atomically: true, encoding: .utf8)
        try "01\n".write(toFile: path("serial"), atomically: true, encoding: .utf8)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try openssl(["req", "-x509"] + ec + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "3650", "-subj", "/CN=reader test authority",
                     "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=keyCertSign"])
        try openssl(["req", "-new"] + ec + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1",
                     "-addext", "subjectAltName=IP:127.0.0.1"])
        try openssl(["req", "-new", "-key", "server.key", "-out", "other.csr", "-subj", "/CN=other.example",
                     "-addext", "subjectAltName=DNS:other.example"])
        func sign(_ request: String, _ name: String, selfSigned: Bool = false, dates: [String]) throws -> Identity {
            let signer = selfSigned ? ["-selfsign", "-keyfile", "server.key"] : ["-cert", "ca.pem", "-keyfile", "ca.key"]
            try openssl(["ca", "-batch", "-notext", "-config", "ca.cnf"] + signer + ["-in", request, "-out", name] + dates)
            return Identity(certificate: path(name), key: path("server.key"))
        }
        let now = ["-days", "30"]
        let january2020 = ["-startdate", "20200101000000Z", "-enddate", "20200201000000Z"]
        authority = path("ca.pem")
        valid = try sign("server.csr", "valid.pem", dates: now)
        expired = try sign("server.csr", "expired.pem", dates: january2020)
        expiredSelfSigned = try sign("server.csr", "expired-self-signed.pem", selfSigned: true, dates: january2020)
        notYetValid = try sign("server.csr", "not-yet-valid.pem", dates: ["-startdate", "20900101000000Z", "-enddate", "20910101000000Z"])
        wrongName = try sign("other.csr", "wrong-name.pem", dates: now)
        selfSigned = try sign("server.csr", "self-signed.pem", selfSigned: true, dates: now)
    }

    /// The folders made in this process, removed when it exits.
    private static let folders = NIOLockedValueBox<[URL]>([])
    private static let removingAtExit: Void = {
        atexit {
            for folder in TestCertificates.folders.withLockedValue({ $0 }) { try? FileManager.default.removeItem(at: folder) }
        }
    }()

    private static func removeAtExit(_ folder: URL) {
        _ = removingAtExit
        folders.withLockedValue { $0.append(folder) }
    }
}

using System.Globalization;
using System.Net;
using System.Net.Sockets;
using Google.Protobuf;
using Grpc.Core;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Options;
using Mono.Unix.Native;
using Salsa.DataFiles;
using Salsa.Hosting.Errors;
using Salsa.Hosting.Security;

namespace Salsa.Hosting.Datasets;

/// <summary>
/// A user's file brought to a service, whatever the way — a REST body or multipart file, a gRPC
/// client stream, a path on the service's machine, an <c>https</c> URL — as a stream to read once,
/// bounded by <see cref="UserFileOptions.MaxBytes"/>, with the <see cref="UserFileSource"/> its
/// readers name it by. Paths and URLs follow the rules of docs/security.md ("Files a service reads
/// for a user"): paths only where the process may read them, resolved through every link first; URLs
/// only to the public internet unless allowed; one message for every way either can fail.
/// </summary>
public sealed class UserFiles(IOptions<UserFileOptions> options, IOptions<ExposureOptions> exposure, ServiceSecurity security, IHttpClientFactory http)
{
    public const string HttpClientName = "salsa-user-files";

    /// <summary>
    /// The media types an upload endpoint accepts: whatever the type says, the file is read by its
    /// content (gzip by its magic bytes, the format by its first lines) — so curl's default
    /// (<c>application/x-www-form-urlencoded</c> for <c>--data-binary</c>) and no type at all work too.
    /// </summary>
    public static readonly string[] UploadMediaTypes =
    [
        "text/csv", "text/plain", "application/geo+json", "chemical/x-mdl-sdfile", "application/gzip", "application/octet-stream",
        "application/x-www-form-urlencoded", "multipart/form-data",
    ];

    private readonly UserFileOptions _options = options.Value;

    // The rule for paths: open to the machine's own user, roots only for anyone else.
    private readonly bool _ownMachine = !Exposure.IsExposed(exposure.Value) && !security.Enabled;

    /// <summary>What readers call a file the caller sent, with this service's size limit.</summary>
    public UserFileSource Sent(string? name) => new(name ?? string.Empty) { MaxBytes = _options.MaxBytes, MaxRecordBytes = _options.MaxRecordBytes };

    /// <summary>The first file of a multipart form, or else the raw body, buffered.</summary>
    public async Task<Stream> FromRequestAsync(HttpRequest request, CancellationToken cancellationToken)
    {
        var (body, name) = await RequestFileAsync(request, cancellationToken);
        await using (body)
        {
            return await BufferAsync(body, name, cancellationToken);
        }
    }

    /// <summary>
    /// A request's file as it arrives: a multipart form's first file, or else the raw body (whatever
    /// its content type says: curl sends a file as <c>application/x-www-form-urlencoded</c>); and what to call it in messages.
    /// </summary>
    public static async Task<(Stream File, string Name)> RequestFileAsync(HttpRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        if (!request.HasFormContentType || !request.ContentType!.StartsWith("multipart/", StringComparison.OrdinalIgnoreCase))
        {
            return (request.Body, "the request body");
        }

        var form = await request.ReadFormAsync(cancellationToken);
        var file = form.Files.Count > 0 ? form.Files[0] : throw new ArgumentException("The form holds no file: send the file as its first file field.");
        return (file.OpenReadStream(), file.FileName);
    }

    /// <summary>The file name a location ends in: a URL's last path segment, or a path's file name.</summary>
    public static string NameOf(string location) =>
        Uri.TryCreate(location, UriKind.Absolute, out var uri) && uri.Scheme is "http" or "https" ? Path.GetFileName(uri.AbsolutePath) : Path.GetFileName(location);

    /// <summary>
    /// A gRPC client stream of one header message, then chunks: the header (<paramref name="header"/>
    /// picks it out of the first message) and the chunks' bytes as a file.
    /// </summary>
    public async Task<(THeader Header, Stream File)> FromGrpcAsync<TRequest, THeader>(IAsyncStreamReader<TRequest> requests, Func<TRequest, THeader?> header, Func<TRequest, ByteString?> chunk, CancellationToken cancellationToken)
        where THeader : class
    {
        ArgumentNullException.ThrowIfNull(requests);
        if (!await requests.MoveNext(cancellationToken) || header(requests.Current) is not { } first)
        {
            throw new ArgumentException("An upload stream starts with its header message, then the file in chunks.");
        }

        var file = NewBuffer();
        try
        {
            while (await requests.MoveNext(cancellationToken))
            {
                var bytes = chunk(requests.Current) ?? throw new ArgumentException("After the header, an upload stream holds only chunks.");
                Account(file.Length + bytes.Length, "the uploaded stream");
                await file.WriteAsync(bytes.Memory, cancellationToken);
            }

            file.Position = 0;
            return (first, file);
        }
        catch
        {
            await file.DisposeAsync();
            throw;
        }
    }

    /// <summary>
    /// A file a workflow names — a path on this machine or a URL fetched here — and what its readers
    /// call it (<paramref name="name"/>, else the location's file name). Its content is quoted in their
    /// messages only to the machine's own user; anyone else has not shown they may see it.
    /// </summary>
    public async Task<(Stream File, UserFileSource Source)> OpenAsync(string location, string? name, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(location);
        var source = new UserFileSource(string.IsNullOrWhiteSpace(name) ? NameOf(location) is { Length: > 0 } file ? file : "the file" : name) { Quotable = _ownMachine, MaxBytes = _options.MaxBytes, MaxRecordBytes = _options.MaxRecordBytes };
        var stream = Uri.TryCreate(location, UriKind.Absolute, out var uri) && uri.Scheme is "http" or "https"
            ? await FetchAsync(uri, cancellationToken)
            : OpenPath(location, source.Name);
        return (stream, source);
    }

    /// <summary>
    /// A path's file, when this process may read it: resolved to its real path (every link followed)
    /// before it is checked against the roots, opened, and checked again through the opened handle
    /// (a link changed in between is caught). Missing, unreadable and not allowed are one answer, so
    /// nothing about the machine can be learned from it; neither the path nor the file is quoted.
    /// </summary>
    private FileStream OpenPath(string location, string name)
    {
        var refused = new ArgumentException(_options.Roots.Count == 0 && !_ownMachine
            ? $"This service reads no files of its machine (it is reachable from other machines, and {UserFileOptions.Section}:Roots lists no folder): upload '{name}', or give an https URL."
            : $"No file '{name}' that this service may read at the path given{(_options.Roots.Count > 0 ? $": it reads files under the folders of {UserFileOptions.Section}:Roots only, links resolved" : string.Empty)}. Upload the file, or give an https URL.");
        if (_options.Roots.Count == 0 && !_ownMachine)
        {
            throw refused;
        }

        var real = RealPaths.Resolve(location);
        if (real is null || !Allowed(real))
        {
            throw refused;
        }

        var stream = OpenRegularFile(real) ?? throw refused;

        if (RealPaths.OfHandle(stream) is { } opened && opened != real)
        {
            stream.Dispose();
            throw refused;
        }

        Account(stream.Length, $"'{name}'");
        return stream;
    }

    /// <summary>
    /// The file at <paramref name="real"/> open for reading when it is a regular file; null when it
    /// cannot be opened or is anything else — a FIFO, whose open would wait for a writer forever (and
    /// hold a thread after the caller gave up), a device such as <c>/dev/zero</c>, a socket, a folder.
    /// On Unix it is opened without waiting (<c>O_NONBLOCK</c>) and its type read from the open
    /// descriptor (<c>fstat</c>, through Mono.Unix), so a file swapped between the two cannot slip by.
    /// </summary>
    private static FileStream? OpenRegularFile(string real)
    {
        if (OperatingSystem.IsWindows())
        {
            try
            {
                var stream = new FileStream(real, FileMode.Open, FileAccess.Read, FileShare.Read, 1 << 16, FileOptions.SequentialScan);
                return stream.CanSeek ? stream : Dispose(stream);
            }
            catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
            {
                return null;
            }
        }

        var descriptor = Syscall.open(real, OpenFlags.O_RDONLY | OpenFlags.O_NONBLOCK | OpenFlags.O_CLOEXEC | OpenFlags.O_NOCTTY);
        if (descriptor < 0)
        {
            return null;
        }

        var handle = new Microsoft.Win32.SafeHandles.SafeFileHandle(descriptor, ownsHandle: true);
        if (Syscall.fstat(descriptor, out var status) != 0 || (status.st_mode & FilePermissions.S_IFMT) != FilePermissions.S_IFREG)
        {
            handle.Dispose();
            return null;
        }

        return new FileStream(handle, FileAccess.Read, 1 << 16);

        static FileStream? Dispose(FileStream stream)
        {
            stream.Dispose();
            return null;
        }
    }

    private bool Allowed(string real) =>
        _options.Roots.Count == 0 ? _ownMachine
            : _options.Roots.Select(RealPaths.Resolve).OfType<string>()
                .Any(root => real.StartsWith(Path.TrimEndingDirectorySeparator(root) + Path.DirectorySeparatorChar, StringComparison.Ordinal));

    private async Task<Stream> FetchAsync(Uri uri, CancellationToken cancellationToken)
    {
        if (uri.Scheme != Uri.UriSchemeHttps && !_options.AllowHttp)
        {
            throw new ArgumentException($"{uri} is not https: a service fetches files over https only.");
        }

        // One answer for every way a fetch fails — refused address, closed or open port, TLS, status,
        // time — so a URL cannot be used to map what this service can reach.
        var failed = new ArgumentException($"Could not fetch {uri}: no file came from it (a service fetches from the public internet, over https, within {_options.FetchTimeout.TotalSeconds:0} s).");
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(_options.FetchTimeout);
        var client = http.CreateClient(HttpClientName);
        try
        {
            using var response = await client.GetAsync(uri, HttpCompletionOption.ResponseHeadersRead, timeout.Token);
            if (!response.IsSuccessStatusCode)
            {
                throw failed;
            }

            Account(response.Content.Headers.ContentLength ?? 0, uri.ToString());
            await using var body = await response.Content.ReadAsStreamAsync(timeout.Token);
            return await BufferAsync(body, uri.ToString(), timeout.Token);
        }
        catch (Exception exception) when (exception is HttpRequestException or IOException || (exception is OperationCanceledException && !cancellationToken.IsCancellationRequested))
        {
            throw failed;
        }
    }

    /// <summary>
    /// The handler behind <see cref="HttpClientName"/>: it connects only to addresses
    /// <see cref="OutboundAddresses"/> allows, checked after DNS (so a name cannot be re-pointed
    /// between the check and the connection) and for every connection a redirect makes; no proxy.
    /// </summary>
    public static SocketsHttpHandler CreateHandler(UserFileOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var allowed = new OutboundAddresses(options.AllowedNetworks);
        return new SocketsHttpHandler
        {
            UseProxy = false,
            MaxAutomaticRedirections = 5,
            ConnectCallback = async (context, cancellationToken) =>
            {
                var addresses = await Dns.GetHostAddressesAsync(context.DnsEndPoint.Host, cancellationToken).ConfigureAwait(false);
                var address = addresses.FirstOrDefault(allowed.Allows)
                    ?? throw new HttpRequestException($"{context.DnsEndPoint.Host} has no address this service may fetch from.");
                var socket = new Socket(address.AddressFamily, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
                try
                {
                    await socket.ConnectAsync(address, context.DnsEndPoint.Port, cancellationToken).ConfigureAwait(false);
                    return new NetworkStream(socket, ownsSocket: true);
                }
                catch
                {
                    socket.Dispose();
                    throw;
                }
            },
        };
    }

    /// <summary>Copies a stream into a temporary file, refusing it once it passes the limit.</summary>
    private async Task<Stream> BufferAsync(Stream source, string what, CancellationToken cancellationToken)
    {
        var file = NewBuffer();
        try
        {
            var buffer = new byte[1 << 16];
            int read;
            while ((read = await source.ReadAsync(buffer, cancellationToken)) > 0)
            {
                Account(file.Length + read, what);
                await file.WriteAsync(buffer.AsMemory(0, read), cancellationToken);
            }

            file.Position = 0;
            return file;
        }
        catch
        {
            await file.DisposeAsync();
            throw;
        }
    }

    private void Account(long bytes, string what)
    {
        if (bytes > _options.MaxBytes)
        {
            throw new LimitExceededException(string.Create(CultureInfo.InvariantCulture, $"{what} is over {_options.MaxBytes:N0} bytes, the most a file may have here ({UserFileOptions.Section}:MaxBytes)."));
        }
    }

    private static FileStream NewBuffer() =>
        new(Path.GetTempFileName(), FileMode.Create, FileAccess.ReadWrite, FileShare.None, 1 << 16, FileOptions.DeleteOnClose | FileOptions.Asynchronous);
}

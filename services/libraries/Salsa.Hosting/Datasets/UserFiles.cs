using Google.Protobuf;
using Grpc.Core;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Options;
using Salsa.Hosting.Errors;
using Salsa.Hosting.Security;

namespace Salsa.Hosting.Datasets;

/// <summary>Where a service may read a user's file from besides an upload (<c>Salsa:Files</c>).</summary>
public sealed class UserFileOptions
{
    public const string Section = "Salsa:Files";

    /// <summary>
    /// Folders a workflow may name a file in. Empty: any file the process may read when the service
    /// listens on loopback only (the embedded default on the user's own machine); none beyond it.
    /// </summary>
    public IList<string> Roots { get; } = [];

    /// <summary>The most bytes one file (upload, path or URL) may have.</summary>
    public long MaxBytes { get; set; } = 256L << 20;

    /// <summary>How long fetching a URL may take.</summary>
    public TimeSpan FetchTimeout { get; set; } = TimeSpan.FromMinutes(2);

    /// <summary>Plain <c>http</c> URLs too (tests on loopback); otherwise only <c>https</c>.</summary>
    public bool AllowHttp { get; set; }
}

/// <summary>
/// A user's file brought to a service, whatever the way — a REST body or multipart file, a gRPC
/// client stream, a path on the service's machine, an <c>https</c> URL — as a local file read
/// once and deleted when disposed, bounded by <see cref="UserFileOptions.MaxBytes"/> as it arrives.
/// Readers then parse it synchronously without holding a connection's thread on the network.
/// </summary>
public sealed class UserFiles(IOptions<UserFileOptions> options, IConfiguration configuration, IHttpClientFactory http)
{
    public const string HttpClientName = "salsa-user-files";

    private readonly UserFileOptions _options = options.Value;

    /// <summary>The first file of a multipart form, or else the raw body, buffered.</summary>
    public async Task<Stream> FromRequestAsync(HttpRequest request, CancellationToken cancellationToken)
    {
        var (body, name) = await RequestFileAsync(request, cancellationToken);
        await using (body)
        {
            return await BufferAsync(body, name, cancellationToken);
        }
    }

    /// <summary>A request's file as it arrives: a multipart form's first file, or else the raw body; and what to call it in messages.</summary>
    public static async Task<(Stream File, string Name)> RequestFileAsync(HttpRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        if (!request.HasFormContentType)
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

    /// <summary>A file a workflow names: a path on this machine (under a configured root) or a URL fetched here.</summary>
    public async Task<Stream> OpenAsync(string location, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(location);
        if (Uri.TryCreate(location, UriKind.Absolute, out var uri) && uri.Scheme is "http" or "https")
        {
            return await FetchAsync(uri, cancellationToken);
        }

        var path = Path.GetFullPath(location);
        CheckAllowed(path);
        if (!File.Exists(path))
        {
            throw new ArgumentException($"No file at {location}.");
        }

        Account(new FileInfo(path).Length, location);
        return new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, 1 << 16, FileOptions.Asynchronous | FileOptions.SequentialScan);
    }

    private void CheckAllowed(string path)
    {
        if (_options.Roots.Count == 0)
        {
            if (AuthSettings.ListenAddresses(configuration).Any(a => !AuthSettings.IsLoopback(a)))
            {
                throw new ArgumentException($"This service listens beyond loopback and reads no files of its machine: upload the file, give an https URL, or list the folders it may read in {UserFileOptions.Section}:Roots.");
            }

            return;
        }

        var inside = _options.Roots.Select(r => Path.TrimEndingDirectorySeparator(Path.GetFullPath(r)) + Path.DirectorySeparatorChar)
            .Any(root => path.StartsWith(root, StringComparison.Ordinal));
        if (!inside)
        {
            throw new ArgumentException($"{path} is outside the folders this service may read ({string.Join(", ", _options.Roots)}; {UserFileOptions.Section}:Roots).");
        }
    }

    private async Task<Stream> FetchAsync(Uri uri, CancellationToken cancellationToken)
    {
        if (uri.Scheme != Uri.UriSchemeHttps && !_options.AllowHttp)
        {
            throw new ArgumentException($"{uri} is not https: a service fetches files over https only.");
        }

        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(_options.FetchTimeout);
        var client = http.CreateClient(HttpClientName);
        HttpResponseMessage response;
        try
        {
            response = await client.GetAsync(uri, HttpCompletionOption.ResponseHeadersRead, timeout.Token);
        }
        catch (HttpRequestException e)
        {
            throw new ArgumentException($"Could not fetch {uri}: {e.Message}", e);
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            throw new ArgumentException($"Fetching {uri} took longer than {_options.FetchTimeout.TotalSeconds:0} s.");
        }

        using (response)
        {
            if (!response.IsSuccessStatusCode)
            {
                throw new ArgumentException($"Fetching {uri} answered {(int)response.StatusCode} {response.ReasonPhrase}.");
            }

            Account(response.Content.Headers.ContentLength ?? 0, uri.ToString());
            await using var body = await response.Content.ReadAsStreamAsync(timeout.Token);
            return await BufferAsync(body, uri.ToString(), timeout.Token);
        }
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
            throw new LimitExceededException($"{what} is over {_options.MaxBytes:N0} bytes, the most a file may have here ({UserFileOptions.Section}:MaxBytes).");
        }
    }

    private static FileStream NewBuffer() =>
        new(Path.GetTempFileName(), FileMode.Create, FileAccess.ReadWrite, FileShare.None, 1 << 16, FileOptions.DeleteOnClose | FileOptions.Asynchronous);
}

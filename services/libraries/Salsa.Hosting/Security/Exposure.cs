using System.Net;

namespace Salsa.Hosting.Security;

/// <summary>
/// Whether other machines can reach a process: it listens beyond loopback, or <see cref="Key"/> says
/// so — set by a gateway listening beyond loopback for the services it hosts (their own ports are on
/// 127.0.0.1, but every caller of the gateway reaches them through it), and by an operator whose
/// service on loopback sits behind a reverse proxy. An exposed process asks callers who they are
/// (<see cref="AuthSettings"/>) and reads files of its machine only under the folders it is given
/// (<see cref="Datasets.UserFileOptions.Roots"/>).
/// </summary>
public static class Exposure
{
    /// <summary>Treat the process as reachable from other machines whatever its endpoints.</summary>
    public const string Key = "Salsa:Exposed";

    /// <summary>What exposes the process — its first endpoint beyond loopback, or the setting — or null when only this machine reaches it.</summary>
    public static string? Reason(ExposureOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.Exposed)
        {
            return $"{Key} is true";
        }

        return ListenAddresses(options).FirstOrDefault(a => !IsLoopback(a)) is { } address ? $"it listens on {address}, beyond loopback" : null;
    }

    public static bool IsExposed(ExposureOptions options) => Reason(options) is not null;

    /// <summary>The URLs the server is configured to listen on (Kestrel endpoints, <c>urls</c>, <c>http_ports</c>).</summary>
    public static IEnumerable<string> ListenAddresses(ExposureOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        foreach (var endpoint in options.Endpoints.Values)
        {
            if (endpoint.Url is { Length: > 0 } url)
            {
                yield return url;
            }
        }

        foreach (var url in (options.Urls ?? "").Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            yield return url;
        }

        foreach (var ports in new[] { options.HttpPorts, options.HttpsPorts })
        {
            if (ports is { Length: > 0 })
            {
                yield return $"*:{ports}"; // every interface
            }
        }
    }

    /// <summary>Whether a listen URL reaches only this machine: localhost, a loopback address, or a Unix-domain socket (<c>http://unix:/path</c>).</summary>
    public static bool IsLoopback(string url)
    {
        ArgumentNullException.ThrowIfNull(url);
        var authority = url.Contains("://", StringComparison.Ordinal) ? url[(url.IndexOf("://", StringComparison.Ordinal) + 3)..] : url;
        if (authority.StartsWith("unix:", StringComparison.OrdinalIgnoreCase))
        {
            return true; // a socket file: only processes of this machine can open it
        }

        authority = authority.Split('/')[0];
        var host = authority.StartsWith('[') ? authority[1..authority.IndexOf(']', StringComparison.Ordinal)] : authority.Split(':')[0];
        return host.Equals("localhost", StringComparison.OrdinalIgnoreCase)
            || (IPAddress.TryParse(host, out var address) && IPAddress.IsLoopback(address));
    }
}

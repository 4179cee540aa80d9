using System.Net;
using System.Net.Sockets;

namespace Salsa.Testing;

/// <summary>HTTP clients whose connections come from a source address of the test's choosing (a second loopback address, loopback towards a test network's address): callers on other hosts, as a server counts them.</summary>
public static class SourceAddressClient
{
    /// <summary>A client of <paramref name="server"/> whose connections come from <paramref name="source"/>, sending <paramref name="key"/> in header <paramref name="keyHeader"/> when given.</summary>
    public static HttpClient Create(Uri server, IPAddress source, string? keyHeader = null, string? key = null)
    {
        var handler = new SocketsHttpHandler
        {
            ConnectCallback = async (context, cancellationToken) =>
            {
                var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
                try
                {
                    socket.Bind(new IPEndPoint(source, 0));
                    await socket.ConnectAsync(context.DnsEndPoint, cancellationToken).ConfigureAwait(false);
                    return new NetworkStream(socket, ownsSocket: true);
                }
                catch
                {
                    socket.Dispose();
                    throw;
                }
            },
        };
        var client = new HttpClient(handler) { BaseAddress = server, Timeout = TimeSpan.FromMinutes(2) };
        if (keyHeader is not null && key is not null)
        {
            client.DefaultRequestHeaders.Add(keyHeader, key);
        }

        return client;
    }
}

using System.Net;
using System.Net.Sockets;

namespace Salsa.Testing;

/// <summary>Loopback ports nobody is listening on, for servers whose port must be known before they start.</summary>
public static class FreePort
{
    /// <summary>
    /// A port the OS just handed out and released. Another process could take it before the caller
    /// binds it; the OS hands out ephemeral ports in rotation, which makes that rare.
    /// </summary>
    public static int Next()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}

using System.Net;
using System.Net.Sockets;

namespace Ingest.Testing;

/// <summary>Loopback ports for tests that need a server, or the certain absence of one.</summary>
public static class LocalPorts
{
    /// <summary>A port nothing listens on (it was free a moment ago), so connecting is refused at once.</summary>
    public static int Unused()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        var port = ((IPEndPoint)listener.LocalEndpoint).Port;
        listener.Stop();
        return port;
    }
}

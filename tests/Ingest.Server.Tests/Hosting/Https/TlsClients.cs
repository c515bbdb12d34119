using System.Net;
using System.Net.Http;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Cryptography.X509Certificates;

namespace Ingest.Server.Tests.Hosting.Https;

/// <summary>
/// TLS clients as a user's would be: the chain checked by .NET's own chain building, trusting only the CA given (or
/// the machine's roots), HTTP/2 demanded exactly. No validation callback anywhere.
/// </summary>
internal static class TlsClients
{
    public static HttpClient Trusting(X509Certificate2? authority)
    {
        var handler = new SocketsHttpHandler();
        if (authority is not null)
        {
            handler.SslOptions = new SslClientAuthenticationOptions { CertificateChainPolicy = TrustOnly(authority) };
        }

        return new HttpClient(handler)
        {
            DefaultRequestVersion = HttpVersion.Version20,
            DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact,
            Timeout = TimeSpan.FromSeconds(30),
        };
    }

    /// <summary>The thumbprint of the certificate the server at <paramref name="address"/> presents, after a handshake that trusts <paramref name="authority"/>.</summary>
    public static async Task<string> ServerCertificateThumbprintAsync(Uri address, X509Certificate2 authority)
    {
        using var tcp = new TcpClient();
        await tcp.ConnectAsync(address.Host, address.Port);
        await using var tls = new SslStream(tcp.GetStream());
        await tls.AuthenticateAsClientAsync(new SslClientAuthenticationOptions { TargetHost = address.Host, CertificateChainPolicy = TrustOnly(authority) });
        return ((X509Certificate2)tls.RemoteCertificate!).Thumbprint;
    }

    private static X509ChainPolicy TrustOnly(X509Certificate2 authority)
    {
        var policy = new X509ChainPolicy { TrustMode = X509ChainTrustMode.CustomRootTrust, RevocationMode = X509RevocationMode.NoCheck };
        policy.CustomTrustStore.Add(authority);
        return policy;
    }
}

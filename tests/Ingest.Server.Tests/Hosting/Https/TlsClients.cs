using System.Net;
using System.Net.Http;
using System.Net.Security;
using System.Security.Cryptography.X509Certificates;

namespace Ingest.Server.Tests.Hosting.Https;

/// <summary>
/// HTTP clients as a user's would be: TLS checked by .NET's own chain building, trusting only the CA given (or the
/// machine's roots), HTTP/2 demanded exactly. No validation callback anywhere.
/// </summary>
internal static class TlsClients
{
    public static HttpClient Trusting(X509Certificate2? authority)
    {
        var handler = new SocketsHttpHandler();
        if (authority is not null)
        {
            var policy = new X509ChainPolicy { TrustMode = X509ChainTrustMode.CustomRootTrust, RevocationMode = X509RevocationMode.NoCheck };
            policy.CustomTrustStore.Add(authority);
            handler.SslOptions = new SslClientAuthenticationOptions { CertificateChainPolicy = policy };
        }

        return new HttpClient(handler)
        {
            DefaultRequestVersion = HttpVersion.Version20,
            DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact,
            Timeout = TimeSpan.FromSeconds(30),
        };
    }
}

using System.Net;
using System.Text;
using Ingest.Contracts.Http;
using Ingest.Server.Hosting.Http.Security;
using Ingest.Server.Tests.Hosting.Http;
using Ingest.Server.Tests.Sources;
using Ingest.Testing;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;

namespace Ingest.Server.Tests.Hosting.Security;

/// <summary>
/// Scoped API keys: every endpoint asked with no key, a wrong key, and a key of each scope; what is
/// logged for admin actions; how the settings are checked.
/// </summary>
public sealed class ApiKeyScopeTests
{
    private const string ReadKey = "read-key-0123456789";
    private const string WriteKey = "write-key-0123456789";
    private const string AdminKey = "admin-key-0123456789";
    private const string LegacyKey = "legacy-key-0123456789";
    private const string HashedKey = "hashed-key-0123456789";

    private static readonly string[] KeyArguments =
    [
        "--Ingest:ApiKeys:0:Name=grafana", "--Ingest:ApiKeys:0:Scopes:0=read", $"--Ingest:ApiKeys:0:Key={ReadKey}",
        "--Ingest:ApiKeys:1:Name=producer", "--Ingest:ApiKeys:1:Scopes:0=write", $"--Ingest:ApiKeys:1:Key={WriteKey}",
        "--Ingest:ApiKeys:2:Name=ops", "--Ingest:ApiKeys:2:Scopes:0=admin", $"--Ingest:ApiKeys:2:Key={AdminKey}",
        "--Ingest:ApiKeys:3:Name=dashboards", "--Ingest:ApiKeys:3:Scopes:0=read,write", $"--Ingest:ApiKeys:3:KeyHash={ApiKeyHash.Format(HashedKey)}",
        $"--Ingest:ApiKey={LegacyKey}",
    ];

    [Fact]
    public async Task Every_endpoint_answers_each_scope_as_its_table_says()
    {
        await using var api = await ApiTestServer.StartAsync(KeyArguments);
        (string? Key, ApiScopes Scopes, string Name)[] callers =
        [
            (null, ApiScopes.None, "no key"),
            ("not-a-configured-key-at-all", ApiScopes.None, "a wrong key"),
            (ReadKey, ApiScopes.Read, "the read key"),
            (WriteKey, ApiScopes.Write, "the write key"),
            (HashedKey, ApiScopes.Read | ApiScopes.Write, "the hashed read,write key"),
            (AdminKey, ApiScopes.Admin, "the admin key"),
            (LegacyKey, ApiScopes.Admin, "Ingest:ApiKey"),
        ];

        var wrong = new List<string>();
        foreach (var (method, _, path, required) in ScopedEndpoints.All)
        {
            foreach (var (key, scopes, name) in callers)
            {
                using var request = new HttpRequestMessage(new HttpMethod(method), ApiTestServer.Relative(path));
                if (key is not null)
                {
                    request.Headers.Add(ApiKeyMiddleware.HeaderName, key);
                }

                if (method is "PUT" or "POST")
                {
                    request.Content = ApiTestServer.Json("{}");
                }

                using var response = await api.Client.SendAsync(request);
                var body = await response.Content.ReadAsStringAsync();
                var expected = required == ApiScopes.None ? "open"
                    : scopes == ApiScopes.None ? "401"
                    : (scopes & required) == required ? "allowed" : "403";
                var got = response.StatusCode switch
                {
                    HttpStatusCode.Unauthorized => "401",
                    HttpStatusCode.Forbidden => "403",
                    _ => required == ApiScopes.None ? "open" : "allowed",
                };
                if (got != expected)
                {
                    wrong.Add($"{method} {path} with {name}: expected {expected}, got {(int)response.StatusCode} {body}");
                }
                else if (got == "403" && !body.Contains($"'{ApiScopeNames.Of(required)}' scope", StringComparison.Ordinal))
                {
                    wrong.Add($"{method} {path} with {name}: the 403 does not name the scope it needs: {body}");
                }

                if (key is not null && body.Contains(key, StringComparison.Ordinal))
                {
                    wrong.Add($"{method} {path} with {name}: the answer shows the key");
                }
            }
        }

        Assert.True(wrong.Count == 0, string.Join('\n', wrong));
    }

    [Fact]
    public async Task Every_mapped_endpoint_is_in_the_scope_table_with_the_scope_it_declares()
    {
        await using var api = await ApiTestServer.StartAsync();
        var missing = new List<string>();
        var routes = 0;
        foreach (var endpoint in api.Server.Endpoints)
        {
            if (endpoint is not RouteEndpoint route)
            {
                continue;
            }

            routes++;
            var pattern = Normalize(route.RoutePattern.RawText);
            var declared = endpoint.Metadata.GetMetadata<OpenEndpoint>() is not null ? ApiScopes.None
                : endpoint.Metadata.GetMetadata<RequiredScope>()?.Scope;
            foreach (var method in endpoint.Metadata.GetMetadata<IHttpMethodMetadata>()?.HttpMethods ?? ["GET"])
            {
                var row = ScopedEndpoints.All.FirstOrDefault(r => r.Method == method && Normalize(r.Route) == pattern);
                if (row.Route is null)
                {
                    missing.Add($"{method} {pattern} is not in ScopedEndpoints.All (declares {declared?.ToString() ?? "no scope"})");
                }
                else if (declared != row.Scope)
                {
                    missing.Add($"{method} {pattern} declares {declared?.ToString() ?? "no scope"}, the table says {row.Scope}");
                }
            }
        }

        Assert.True(routes >= ScopedEndpoints.All.Count, $"only {routes} route endpoints found");
        Assert.True(missing.Count == 0, string.Join('\n', missing));
    }

    [Fact]
    public async Task An_admin_action_is_logged_with_the_key_name_and_never_the_key()
    {
        var logs = new RecordedLogs();
        await using var api = await ApiTestServer.StartAsync(logs, KeyArguments);
        using var request = new HttpRequestMessage(HttpMethod.Put, ApiTestServer.Relative("/indexes/Orders/ByTotal"))
        {
            Content = ApiTestServer.Json("""{"collections":["Orders"],"fields":[{"name":"Total","path":"total","type":"number"}]}"""),
        };
        request.Headers.Add(ApiKeyMiddleware.HeaderName, AdminKey);
        using var response = await api.Client.SendAsync(request);
        Assert.Equal(HttpStatusCode.Created, response.StatusCode);

        var lines = logs.Matching("Admin action PUT /indexes/Orders/ByTotal");
        Assert.True(lines.Count == 1, logs.Dump());
        Assert.Contains("'ops'", lines[0].Message, StringComparison.Ordinal);
        Assert.Contains(((int)response.StatusCode).ToString(System.Globalization.CultureInfo.InvariantCulture), lines[0].Message, StringComparison.Ordinal);
        Assert.DoesNotContain(AdminKey, logs.Dump(), StringComparison.Ordinal);

        // A read never logs an admin line; a refused admin action is answered before anything runs.
        using var read = new HttpRequestMessage(HttpMethod.Get, ApiTestServer.Relative("/indexes"));
        read.Headers.Add(ApiKeyMiddleware.HeaderName, ReadKey);
        (await api.Client.SendAsync(read)).Dispose();
        using var refused = new HttpRequestMessage(HttpMethod.Delete, ApiTestServer.Relative("/indexes/Orders/ByTotal"));
        refused.Headers.Add(ApiKeyMiddleware.HeaderName, ReadKey);
        using var refusedResponse = await api.Client.SendAsync(refused);
        Assert.Equal(HttpStatusCode.Forbidden, refusedResponse.StatusCode);
        Assert.Single(logs.Matching("Admin action"));
        using var still = new HttpRequestMessage(HttpMethod.Get, ApiTestServer.Relative("/indexes/Orders/ByTotal"));
        still.Headers.Add(ApiKeyMiddleware.HeaderName, ReadKey);
        using var stillThere = await api.Client.SendAsync(still);
        Assert.Equal(HttpStatusCode.OK, stillThere.StatusCode);
    }

    [Fact]
    public async Task Without_keys_the_api_is_open_and_admin_actions_are_logged_as_anonymous()
    {
        var logs = new RecordedLogs();
        await using var api = await ApiTestServer.StartAsync(logs);
        using var response = await api.Client.PostAsync(ApiTestServer.Relative("/admin/verify"), content: null);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Single(logs.Matching("Admin action POST /admin/verify by API key 'anonymous'"));
    }

    public static TheoryData<string[], string> BadSettings() => new()
    {
        { ["--Ingest:ApiKeys:0:Scopes:0=read", "--Ingest:ApiKeys:0:Key=0123456789abcdef"], "Ingest:ApiKeys:0:Name is required" },
        { ["--Ingest:ApiKeys:0:Name=has space", "--Ingest:ApiKeys:0:Scopes:0=read", "--Ingest:ApiKeys:0:Key=0123456789abcdef"], "Ingest:ApiKeys:0:Name 'has space'" },
        { ["--Ingest:ApiKeys:0:Name=a", "--Ingest:ApiKeys:0:Key=0123456789abcdef"], "Ingest:ApiKeys:0:Scopes must list at least one of read, write, admin" },
        { ["--Ingest:ApiKeys:0:Name=a", "--Ingest:ApiKeys:0:Scopes:0=reed", "--Ingest:ApiKeys:0:Key=0123456789abcdef"], "Ingest:ApiKeys:0:Scopes has 'reed'" },
        { ["--Ingest:ApiKeys:0:Name=a", "--Ingest:ApiKeys:0:Scopes:0=read"], "Ingest:ApiKeys:0 needs exactly one of :KeyHash" },
        { ["--Ingest:ApiKeys:0:Name=a", "--Ingest:ApiKeys:0:Scopes:0=read", "--Ingest:ApiKeys:0:Key=short-secret"], "Ingest:ApiKeys:0:Key must be at least 16 characters" },
        { ["--Ingest:ApiKeys:0:Name=a", "--Ingest:ApiKeys:0:Scopes:0=read", "--Ingest:ApiKeys:0:KeyHash=md5:abc"], "Ingest:ApiKeys:0:KeyHash must be 'sha256:' followed by 64 hex digits" },
        {
            ["--Ingest:ApiKeys:0:Name=a", "--Ingest:ApiKeys:0:Scopes:0=read", "--Ingest:ApiKeys:0:Key=0123456789abcdef-secret",
             "--Ingest:ApiKeys:1:Name=A", "--Ingest:ApiKeys:1:Scopes:0=read", "--Ingest:ApiKeys:1:Key=0123456789abcdef-other"],
            "Ingest:ApiKeys:1:Name 'A' is already the name of Ingest:ApiKeys:0"
        },
        {
            ["--Ingest:ApiKey=0123456789abcdef-secret", "--Ingest:ApiKeys:0:Name=a", "--Ingest:ApiKeys:0:Scopes:0=read", "--Ingest:ApiKeys:0:Key=0123456789abcdef-secret"],
            "Ingest:ApiKeys:0 is the same key as Ingest:ApiKey"
        },
    };

    [Theory]
    [MemberData(nameof(BadSettings))]
    public async Task A_bad_key_setting_stops_start_up_naming_it_without_the_key(string[] arguments, string expected)
    {
        using var directory = new TestDirectory();
        var error = await Assert.ThrowsAnyAsync<Exception>(() => RunningServer.StartAsync(directory.Path, arguments));

        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("0123456789abcdef", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("short-secret", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_key_hash_is_sha256_of_the_utf8_key_and_parses_back()
    {
        var key = ApiKeyHash.NewKey();
        var hash = ApiKeyHash.Format(key);
        var expected = Convert.ToHexStringLower(System.Security.Cryptography.SHA256.HashData(Encoding.UTF8.GetBytes(key)));

        Assert.StartsWith(ApiKeyHash.KeyPrefix, key, StringComparison.Ordinal);
        Assert.Equal(50, key.Length);
        Assert.Equal("sha256:" + expected, hash);
        var parsed = new byte[ApiKeyHash.HashBytes];
        Assert.True(ApiKeyHash.TryParse(hash.ToUpperInvariant().Replace("SHA256:", "sha256:", StringComparison.Ordinal), parsed));
        Assert.Equal(expected, Convert.ToHexStringLower(parsed));
        Assert.False(ApiKeyHash.TryParse("sha256:" + expected[..62], parsed));
        Assert.False(ApiKeyHash.TryParse("sha256:" + expected[..62] + "zz", parsed));
        Assert.NotEqual(key, ApiKeyHash.NewKey());
    }

    private static string Normalize(string? route) => "/" + (route ?? "").Trim('/');
}

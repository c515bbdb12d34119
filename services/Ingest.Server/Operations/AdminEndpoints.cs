using Ingest.Contracts.Http;
using Ingest.Documents;
using Ingest.Server.Hosting.Http.Security;

namespace Ingest.Server.Operations;

/// <summary><c>POST /admin/verify</c>: checks every page's checksum and every tree's structure of the store's last commit.</summary>
public static class AdminEndpoints
{
    public static IEndpointRouteBuilder MapAdminEndpoints(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        endpoints.MapPost("/admin/verify", Verify).RequireScope(ApiScopes.Admin);
        return endpoints;
    }

    /// <summary>200 with the report either way: the check itself succeeded; <c>clean</c> says what it found (damage also turns /health to 503).</summary>
    private static IResult Verify(DocumentStore store)
    {
        var report = store.Verify();
        var damaged = new DamagedPageEntry[report.Damaged.Count];
        for (var i = 0; i < damaged.Length; i++)
        {
            var d = report.Damaged[i];
            damaged[i] = new DamagedPageEntry(d.Page, d.FilePath, d.Offset, d.Kind, d.Tree, d.Problem);
        }

        return TypedResults.Json(
            new VerifyResponse(report.IsClean, report.TransactionId, report.PagesChecked, report.TreesChecked, damaged), IngestHttpJsonContext.Default.VerifyResponse);
    }
}

using Ingest.Server.Hosting.Http;

namespace Ingest.Server.Documents;

/// <summary>
/// The document id of a <c>/docs/{id}</c> request: the rest of the path, percent-decoded exactly once (<see cref="RestOfPath"/>).
/// A literal <c>/</c> and <c>%2F</c> both mean '/': <c>/docs/orders/1</c> and <c>/docs/orders%2F1</c> are the id <c>orders/1</c>.
/// </summary>
internal static class DocumentIdPath
{
    public static bool TryRead(HttpContext context, out string id, out IResult problem) =>
        RestOfPath.TryRead(context, "/docs/", "id", "/docs/orders/1", out id, out problem);
}

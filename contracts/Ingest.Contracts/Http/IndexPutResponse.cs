namespace Ingest.Contracts.Http;

/// <summary><c>PUT /indexes/{name}</c> and <c>POST /indexes/{name}/reset</c>: what the request set going.</summary>
/// <param name="Name">The index's name.</param>
/// <param name="Outcome">"created" (201), "unchanged" (200: the same definition was already there) or "rebuilding" (202: the changed definition builds side by side and is swapped in once caught up; a reset always answers this).</param>
public sealed record IndexPutResponse(string Name, string Outcome);

namespace Ingest.Server.Hosting.Http.Security;

/// <summary>How endpoint mappings declare the scope they need: <c>MapGet(...).RequireScope(ApiScopes.Read)</c>.</summary>
public static class EndpointScopeExtensions
{
    public static TBuilder RequireScope<TBuilder>(this TBuilder builder, ApiScopes scope)
        where TBuilder : IEndpointConventionBuilder =>
        builder.WithMetadata(new RequiredScope(scope));

    /// <summary>Needs no key at all; see <see cref="OpenEndpoint"/> for the two that may.</summary>
    public static TBuilder OpenToAnyone<TBuilder>(this TBuilder builder)
        where TBuilder : IEndpointConventionBuilder =>
        builder.WithMetadata(new OpenEndpoint());
}

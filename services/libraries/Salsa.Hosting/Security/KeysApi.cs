using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.Routing;
using Salsa.Hosting.Errors;
using Salsa.Store;

namespace Salsa.Hosting.Security;

/// <summary>A key to create: who holds it, for which tenant (default: the caller's), with which scopes.</summary>
public sealed record ApiKeyRequest(string Name, IReadOnlyList<string> Scopes, string? Tenant = null);

/// <summary>A key as listed: never its secret.</summary>
public sealed record ApiKeyView(string Id, string Name, string Tenant, IReadOnlyList<string> Scopes, DateTimeOffset Created, DateTimeOffset? Revoked)
{
    public static ApiKeyView From(ApiKeyRecord record)
    {
        ArgumentNullException.ThrowIfNull(record);
        return new(record.Id, record.Name, record.Tenant, record.Scopes, record.Created, record.Revoked);
    }
}

/// <summary>A key just created: <see cref="Key"/> is shown this once and kept nowhere.</summary>
public sealed record CreatedApiKeyView(string Key, ApiKeyView Info);

/// <summary>REST for API keys, <c>admin</c> scope only: create (the key is in the answer, once), list, revoke.</summary>
public static class KeysApi
{
    public static RouteGroupBuilder MapKeysApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/api/keys").WithTags("Keys").RequireAuthorization(Scopes.Admin);

        group.MapPost("/", async Task<Created<CreatedApiKeyView>> (ApiKeys keys, ApiKeyRequest request, CancellationToken cancellationToken) =>
        {
            var created = await keys.CreateAsync(request.Tenant ?? CallerTenant.Current, request.Name, request.Scopes ?? [], cancellationToken);
            return TypedResults.Created($"/api/keys/{created.Record.Id}", new CreatedApiKeyView(created.Key, ApiKeyView.From(created.Record)));
        }).WithName("CreateApiKey").WithSummary("Creates an API key for a tenant (default: the caller's) with scopes read, run and/or admin; the key is in this answer only.");

        group.MapGet("/", async (IDataStore store, string? tenant, CancellationToken cancellationToken) =>
        {
            if (tenant is not null)
            {
                Tenants.Require(tenant);
            }

            return TypedResults.Ok((await store.ListApiKeysAsync(tenant, cancellationToken)).Select(ApiKeyView.From).ToList());
        }).WithName("ListApiKeys").WithSummary("Every key (or one tenant's), oldest first, revoked ones too; never their secrets.");

        group.MapDelete("/{id}", async (ApiKeys keys, string id, CancellationToken cancellationToken) =>
            await keys.RevokeAsync(id, cancellationToken)
                ? TypedResults.NoContent()
                : throw new NotFoundException($"No key {id} that is not revoked already."))
            .WithName("RevokeApiKey").WithSummary("Revokes a key: it authenticates nothing from now on (other processes trust a key they verified for Salsa:Auth:KeyCacheTime at most).");

        return group;
    }
}

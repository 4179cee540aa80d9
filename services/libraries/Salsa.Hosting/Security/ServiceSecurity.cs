using System.Globalization;
using System.Threading.RateLimiting;
using Microsoft.AspNetCore.Authentication;
using Microsoft.AspNetCore.Authentication.JwtBearer;
using Microsoft.AspNetCore.Authorization;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.AspNetCore.RateLimiting;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;
using Microsoft.IdentityModel.Tokens;
using Salsa.Settings;

namespace Salsa.Hosting.Security;

/// <summary>
/// Who may call a service, through ASP.NET Core's own authentication, authorization and rate
/// limiting. Every endpoint needs a scope: the one it declares (<c>RequireAuthorization(Scopes.Admin)</c>,
/// <c>[Authorize(Scopes.Read)]</c>), or else <c>read</c> for a REST GET and <c>run</c> for anything
/// else; only health, OpenAPI and the API reference are open (<c>AllowAnonymous</c>). Records are the
/// caller's tenant's (<see cref="CallerTenant"/>).
/// </summary>
public sealed class ServiceSecurity(bool enabled, bool bearerTokens = false)
{
    /// <summary>Whether requests need credentials (see <see cref="AuthSettings.ResolveEnabled"/>).</summary>
    public bool Enabled { get; } = enabled;

    /// <summary>Whether a request's bearer token goes to the JWT handler: credentials are asked and <c>Salsa:Auth:Jwt</c> names a provider or a key. Decided once, read per request.</summary>
    public bool AcceptsBearerTokens { get; } = enabled && bearerTokens;

    /// <summary>The default scheme: forwards to the bearer-token or the API-key handler by what the request carries.</summary>
    internal const string PolicyScheme = "Salsa";

    public static void Add(WebApplicationBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        var services = builder.Services;
        services.AddSalsaOptions<AuthSettings>(AuthSettings.Section);
        services.AddSalsaOptions<ExposureOptions>(null);
        services.AddSingleton<IValidateOptions<AuthSettings>, AuthSettingsValidation>();
        services.AddSingleton(sp =>
        {
            var settings = sp.GetRequiredService<IOptions<AuthSettings>>().Value;
            return new ServiceSecurity(settings.ResolveEnabled(sp.GetRequiredService<IOptions<ExposureOptions>>().Value), settings.Jwt.Enabled);
        });
        services.TryAddSingleton(TimeProvider.System);
        services.AddSingleton<ApiKeys>();

        services.AddAuthentication(o =>
            {
                o.DefaultScheme = PolicyScheme;
                o.DefaultChallengeScheme = CredentialsHandler.SchemeName; // one voice for every 401 and 403
                o.DefaultForbidScheme = CredentialsHandler.SchemeName;
            })
            .AddPolicyScheme(PolicyScheme, "API key or bearer token", o => o.ForwardDefaultSelector = context =>
                context.RequestServices.GetRequiredService<ServiceSecurity>().AcceptsBearerTokens && IsBearerToken(context.Request)
                    ? JwtBearerDefaults.AuthenticationScheme : CredentialsHandler.SchemeName)
            .AddScheme<AuthenticationSchemeOptions, CredentialsHandler>(CredentialsHandler.SchemeName, null)
            .AddJwtBearer(); // consulted only when Salsa:Auth:Jwt names a provider or a key (the selector above)
        services.AddOptions<JwtBearerOptions>(JwtBearerDefaults.AuthenticationScheme)
            .Configure<IOptions<AuthSettings>>((jwt, settings) => ConfigureJwt(jwt, settings.Value.Jwt));

        services.AddAuthorization(o =>
        {
            foreach (var scope in Scopes.All)
            {
                o.AddPolicy(scope, p => p.AddRequirements(new ScopeRequirement(scope)));
            }

            o.FallbackPolicy = new AuthorizationPolicyBuilder().AddRequirements(new ScopeRequirement(null)).Build();
        });
        services.AddSingleton<IAuthorizationHandler, ScopeHandler>();
        services.AddRateLimiter(_ => { });
        services.AddOptions<RateLimiterOptions>()
            .Configure<IOptions<AuthSettings>, ServiceSecurity>((limiter, settings, security) => ConfigureRateLimits(limiter, settings.Value.RateLimit, security));
    }

    /// <summary>Authentication, authorization, rate limits, then the caller's tenant for the rest of the request.</summary>
    public static void Use(WebApplication app)
    {
        ArgumentNullException.ThrowIfNull(app);
        app.UseAuthentication();
        app.UseAuthorization();
        app.UseRateLimiter();
        app.Use(static async (context, next) =>
        {
            if (CallerClaims.TenantOf(context.User) is not { } tenant)
            {
                await next(context).ConfigureAwait(false); // an open endpoint, or a refusal on its way
                return;
            }

            using var acting = CallerTenant.Enter(tenant);
            await next(context).ConfigureAwait(false);
        });
    }

    private static bool IsBearerToken(HttpRequest request)
    {
        var authorization = request.Headers.Authorization.ToString();
        return authorization.StartsWith("Bearer ", StringComparison.OrdinalIgnoreCase)
            && !authorization.AsSpan("Bearer ".Length).TrimStart().StartsWith(ApiKeys.Prefix, StringComparison.Ordinal);
    }

    private static void ConfigureJwt(JwtBearerOptions options, JwtSettings jwt)
    {
        if (!jwt.Enabled)
        {
            return;
        }

        options.MapInboundClaims = false;
        if (!string.IsNullOrEmpty(jwt.Authority))
        {
            options.Authority = jwt.Authority;
            options.Audience = jwt.Audience;
            options.RequireHttpsMetadata = jwt.Authority.StartsWith("https://", StringComparison.OrdinalIgnoreCase);
        }
        else
        {
            options.TokenValidationParameters = new TokenValidationParameters
            {
                IssuerSigningKey = new SymmetricSecurityKey(Convert.FromBase64String(jwt.SigningKey!)),
                ValidIssuer = jwt.Issuer,
                ValidateIssuer = !string.IsNullOrEmpty(jwt.Issuer),
                ValidAudience = jwt.Audience,
                ValidateAudience = !string.IsNullOrEmpty(jwt.Audience),
            };
        }

        options.Events = new JwtBearerEvents
        {
            // The token's claims become the same claims an API key gives.
            OnTokenValidated = context =>
            {
                var principal = context.Principal!;
                var tenant = principal.FindFirst(jwt.TenantClaim)?.Value;
                if (!Store.Tenants.IsValid(tenant))
                {
                    context.Fail($"The bearer token names no valid tenant (claim '{jwt.TenantClaim}').");
                    return Task.CompletedTask;
                }

                var scopes = principal.FindAll(jwt.ScopeClaim).Concat(principal.FindAll("scp"))
                    .SelectMany(c => c.Value.Split(' ', StringSplitOptions.RemoveEmptyEntries))
                    .Where(s => Scopes.All.Contains(s))
                    .Distinct(StringComparer.Ordinal);
                var subject = principal.FindFirst("sub")?.Value ?? "unknown";
                context.Principal = CallerClaims.Principal(JwtBearerDefaults.AuthenticationScheme, tenant!, $"jwt:{subject}", scopes);
                return Task.CompletedTask;
            },
        };
    }

    private static void ConfigureRateLimits(RateLimiterOptions options, RateLimitSettings limits, ServiceSecurity security)
    {
        options.GlobalLimiter = PartitionedRateLimiter.Create<HttpContext, string>(context =>
        {
            var holder = CallerClaims.HolderOf(context.User);
            if (!security.Enabled || limits.PermitsPerSecond <= 0 || holder is null or CallerClaims.ServiceHolder)
            {
                return RateLimitPartition.GetNoLimiter("");
            }

            return RateLimitPartition.GetTokenBucketLimiter(holder, _ => new TokenBucketRateLimiterOptions
            {
                TokenLimit = Math.Max(limits.Burst, 1),
                TokensPerPeriod = limits.PermitsPerSecond,
                ReplenishmentPeriod = TimeSpan.FromSeconds(1),
                QueueLimit = 0,
                AutoReplenishment = true,
            });
        });
        options.OnRejected = async (rejected, cancellationToken) =>
        {
            var seconds = rejected.Lease.TryGetMetadata(MetadataName.RetryAfter, out var retryAfter) ? Math.Max(1, (int)Math.Ceiling(retryAfter.TotalSeconds)) : 1;
            var http = rejected.HttpContext;
            http.Response.Headers.RetryAfter = seconds.ToString(CultureInfo.InvariantCulture);
            var detail = string.Create(CultureInfo.InvariantCulture,
                $"These credentials made more than {limits.PermitsPerSecond} requests a second (bursts of {limits.Burst}); retry after {seconds} s.");
            if (CredentialsHandler.IsGrpc(http.Request))
            {
                CredentialsHandler.WriteGrpcStatus(http.Response, 8 /* RESOURCE_EXHAUSTED */, detail);
                return;
            }

            http.Response.StatusCode = StatusCodes.Status429TooManyRequests;
            await http.RequestServices.GetRequiredService<IProblemDetailsService>().WriteAsync(new ProblemDetailsContext
            {
                HttpContext = http,
                ProblemDetails = new ProblemDetails { Status = StatusCodes.Status429TooManyRequests, Title = "Too many requests", Detail = detail },
            }).ConfigureAwait(false);
        };
    }
}

/// <summary>The scope an endpoint needs; null: inferred from the endpoint (GET: read, otherwise run).</summary>
internal sealed class ScopeRequirement(string? scope) : IAuthorizationRequirement
{
    public string? Scope { get; } = scope;
}

internal sealed class ScopeHandler : AuthorizationHandler<ScopeRequirement>
{
    protected override Task HandleRequirementAsync(AuthorizationHandlerContext context, ScopeRequirement requirement)
    {
        var http = context.Resource as HttpContext;
        var endpoint = http?.GetEndpoint();
        if (requirement.Scope is null && endpoint is null)
        {
            // No endpoint: a static file of the web UI, or a 404 (which reveals nothing either).
            context.Succeed(requirement);
            return Task.CompletedTask;
        }

        var needed = requirement.Scope ?? Inferred(endpoint!);
        if (http is not null)
        {
            http.Items[CredentialsHandler.RequiredScopeItem] = needed;
        }

        if (context.User.Identity?.IsAuthenticated == true && Scopes.Grant(CallerClaims.ScopesOf(context.User), needed))
        {
            context.Succeed(requirement);
        }

        return Task.CompletedTask;
    }

    private static string Inferred(Endpoint endpoint) =>
        endpoint.Metadata.GetMetadata<IHttpMethodMetadata>() is { } methods
        && methods.HttpMethods.Count > 0
        && methods.HttpMethods.All(m => m is "GET" or "HEAD")
        && endpoint.Metadata.GetMetadata<Grpc.AspNetCore.Server.GrpcMethodMetadata>() is null
            ? Scopes.Read
            : Scopes.Run;
}

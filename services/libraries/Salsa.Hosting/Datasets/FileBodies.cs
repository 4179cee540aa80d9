using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http.Metadata;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Salsa.Hosting.Datasets;

/// <summary>
/// Endpoints whose body is a file or a dataset: every other REST body is held to
/// <see cref="ServiceLimits.MaxRequestBytes"/> (1 MiB, Kestrel's limit for the process), these to
/// <see cref="UserFileOptions.MaxBytes"/> and a multipart form's framing — as routing applies an
/// endpoint's <see cref="IRequestSizeLimitMetadata"/> and form parsing its
/// <c>IFormOptionsMetadata</c> (ASP.NET Core's <c>RequestSizeLimit</c> and <c>RequestFormLimits</c> attributes), before the body is read.
/// </summary>
public static class FileBodies
{
    /// <summary>What a multipart form may add around its file: boundaries, headers, other fields.</summary>
    public const long FormFraming = 64 * 1024;

    /// <summary>Lets the endpoint's body be a file of up to <c>Salsa:Files:MaxBytes</c>.</summary>
    public static TBuilder TakesFile<TBuilder>(this TBuilder builder)
        where TBuilder : IEndpointConventionBuilder
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.Add(endpoint =>
        {
            var bytes = endpoint.ApplicationServices.GetRequiredService<IOptions<UserFileOptions>>().Value.MaxBytes + FormFraming;
            endpoint.Metadata.Add(new RequestSizeLimitAttribute(bytes));
            endpoint.Metadata.Add(new RequestFormLimitsAttribute { MultipartBodyLengthLimit = bytes });
        });
        return builder;
    }
}

using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Salsa.Datasets;

namespace Salsa.Hosting.Datasets;

/// <summary>The shipped data sets for services that import them (census, chem).</summary>
public static class ShippedData
{
    /// <summary>Configuration key naming the data folder; <c>SALSA_DATA</c> and discovery apply when it is absent.</summary>
    public const string DirectoryKey = "Salsa:DataDirectory";

    /// <summary>Registers the <see cref="DataDirectory"/> the host imports from.</summary>
    public static WebApplicationBuilder AddShippedData(this WebApplicationBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        var configured = builder.Configuration[DirectoryKey];
        builder.Services.TryAddSingleton(string.IsNullOrWhiteSpace(configured) ? DataDirectory.Default : new DataDirectory(configured));
        return builder;
    }
}

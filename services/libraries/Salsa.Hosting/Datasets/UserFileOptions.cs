using System.ComponentModel.DataAnnotations;
using System.Net;
using Salsa.Hosting.Security;

namespace Salsa.Hosting.Datasets;

/// <summary>Where a service may read a user's file from besides an upload (<c>Salsa:Files</c>).</summary>
public sealed class UserFileOptions : IValidatableObject
{
    public const string Section = "Salsa:Files";

    /// <summary>
    /// Folders a workflow may name a file in. Empty: any file the process may read when the process
    /// is its user's own (not <see cref="Exposure">exposed</see>, no credentials asked), none otherwise.
    /// </summary>
    public IList<string> Roots { get; } = [];

    /// <summary>The most bytes one file (upload, path or URL) may have, decompressed when it is gzip.</summary>
    [Range(1L, long.MaxValue)]
    public long MaxBytes { get; set; } = 256L << 20;

    /// <summary>
    /// The most bytes one record of a file may have — a line of a CSV or SMILES file, an SD record, a
    /// GeoJSON feature — counted as the file is read, so a file of one huge line is refused at it.
    /// </summary>
    [Range(1024L, 1L << 30)]
    public long MaxRecordBytes { get; set; } = Salsa.DataFiles.UserFileSource.DefaultMaxRecordBytes;

    /// <summary>How long fetching a URL may take.</summary>
    [Range(typeof(TimeSpan), "00:00:00.001", "1.00:00:00")]
    public TimeSpan FetchTimeout { get; set; } = TimeSpan.FromMinutes(2);

    /// <summary>Plain <c>http</c> URLs too (tests on loopback); otherwise only <c>https</c>.</summary>
    public bool AllowHttp { get; set; }

    /// <summary>
    /// Networks (CIDR: <c>10.20.0.0/16</c>, <c>127.0.0.1/32</c>) a URL may reach although they are not
    /// the public internet. Without them, loopback, link-local (cloud metadata at 169.254.169.254),
    /// private, shared, multicast and reserved addresses are never fetched from.
    /// </summary>
    public IList<string> AllowedNetworks { get; } = [];

    /// <summary>Every allowed network is one (CIDR), checked at start.</summary>
    public IEnumerable<ValidationResult> Validate(ValidationContext validationContext)
    {
        foreach (var network in AllowedNetworks.Where(n => !IPNetwork.TryParse(n, out _)))
        {
            yield return new ValidationResult($"'{network}' is not a network in CIDR notation (10.20.0.0/16, 127.0.0.1/32, fd00::/8).", [nameof(AllowedNetworks)]);
        }
    }
}

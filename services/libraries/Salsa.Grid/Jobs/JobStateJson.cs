using System.Text.Json;
using System.Text.Json.Serialization;
using Salsa.Store;

namespace Salsa.Grid.Jobs;

/// <summary>
/// A job's state as JSON writes it: the store's <see cref="JobState"/> (the one definition), lower
/// case (<c>running</c>, <c>succeeded</c>), as the services' Jobs API names it.
/// </summary>
public sealed class JobStateJson() : JsonStringEnumConverter<JobState>(JsonNamingPolicy.SnakeCaseLower);

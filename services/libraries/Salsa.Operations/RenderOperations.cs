using System.Text.Json;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Contracts.Operations;
using Salsa.Contracts.Render;
using Salsa.Hosting;
using Salsa.Rendering;
using Salsa.Rendering.Maps;
using Salsa.Rendering.Molecules;
using Salsa.Rendering.Scatter;
using T = Salsa.Contracts.Operations.ValueTypes;

namespace Salsa.Operations;

/// <summary>The render service's workflow operations: a census map of a clustering, a scatter plot of an embedding, a grid of molecules.</summary>
public static class RenderOperations
{
    public static IReadOnlyList<OperationSpec> Describe(ServiceLimits limits) => [CensusMap(limits), Scatter(limits), Molecules()];

    /// <summary>A figure's width and height in pixels, its default the figure's own.</summary>
    private static (ParameterSpec Width, ParameterSpec Height) Size(int width, int height, ServiceLimits limits) =>
        (new("width", ParameterKind.Integer, "pixels") { Default = width, Minimum = FigureBounds.MinWidth, Maximum = limits.MaxImageSide },
         new("height", ParameterKind.Integer, "pixels") { Default = height, Minimum = FigureBounds.MinHeight, Maximum = limits.MaxImageSide });

    private static OperationSpec CensusMap(ServiceLimits limits)
    {
        var map = new CensusMapOptions();
        InputSpec points = new("points", T.Points, true, "the census query's points");
        InputSpec clustering = new("clustering", T.Clustering, true, "their clustering (annealing or k-means)");
        var (width, height) = Size(map.Width, map.Height, limits);
        ParameterSpec title = new("title", ParameterKind.String, "the map's title (empty: the number of clusters)") { Default = "" };
        ParameterSpec counties = new("counties", ParameterKind.Boolean, "draw county outlines") { Default = false };
        return new()
        {
            Service = ServiceNames.Render,
            Name = "census-map",
            Progress = [new("iteration", "file")],
            Summary = "A map of clustered census points (SVG, PNG) and GeoJSON of the clusters with their population.",
            Inputs = [points, clustering],
            Parameters = [width, height, title, counties],
            Outputs = [new("job", T.Rendering, "the rendering job (its files)")],
            Artifacts = [Artifacts.MapSvg, Artifacts.MapPng, Artifacts.ClustersGeoJson],
            Execute = async c =>
            {
                var job = c.InputJob(clustering);
                var request = new RenderCensusMapRequest
                {
                    PointsDatasetId = c.InputString(points),
                    ClusteringJobId = job.JobId,
                    ClusteringService = job.Service,
                    Width = c.Get<int>(width),
                    Height = c.Get<int>(height),
                    Title = c.Get<string>(title),
                    Counties = c.Get<bool>(counties),
                };
                var rendering = await c.RunJobAsync(ServiceNames.Render, (invoker, options) => new RenderClient(invoker).StartCensusMapAsync(request, options));
                return StepOutcome.Of(rendering, ("job", rendering.ToJson()));
            },
        };
    }

    private static OperationSpec Scatter(ServiceLimits limits)
    {
        var scatter = new ScatterOptions();
        InputSpec embedding = new("embedding", T.Embedding, true, "the MDS embedding");
        InputSpec clustering = new("clustering", T.Clustering, false, "a clustering of the embedding's dataset, to colour the items");
        var (width, height) = Size(scatter.Width, scatter.Height, limits);
        ParameterSpec title = new("title", ParameterKind.String, "the plot's title (empty: the embedding's size and stress)") { Default = "" };
        return new()
        {
            Service = ServiceNames.Render,
            Name = "scatter",
            Progress = [new("iteration", "file")],
            Summary = "A scatter plot (SVG, PNG) of an embedding, coloured by the cluster of each item when a clustering of its dataset is given.",
            Inputs = [embedding, clustering],
            Parameters = [width, height, title],
            Outputs = [new("job", T.Rendering, "the rendering job (its files)")],
            Artifacts = [Artifacts.ScatterSvg, Artifacts.ScatterPng],
            Execute = async c =>
            {
                var request = new RenderScatterRequest
                {
                    EmbeddingJobId = c.InputJob(embedding).JobId,
                    ClusteringJobId = c.Has(clustering) ? c.InputJob(clustering).JobId : "",
                    Width = c.Get<int>(width),
                    Height = c.Get<int>(height),
                    Title = c.Get<string>(title),
                };
                var job = await c.RunJobAsync(ServiceNames.Render, (invoker, options) => new RenderClient(invoker).StartScatterAsync(request, options));
                return StepOutcome.Of(job, ("job", job.ToJson()));
            },
        };
    }

    private static OperationSpec Molecules()
    {
        InputSpec compounds = new("compounds", T.Compounds, true, "the compounds (ids and SMILES)");
        InputSpec items = new("items", T.Indices, true, "which compounds, in order (e.g. Butina medoids, largest cluster first)");
        InputSpec sizes = new("sizes", T.Numbers, false, "a size per item (e.g. its cluster's)");
        ParameterSpec count = new("count", ParameterKind.Integer, "draw the first N items") { Default = 20, Minimum = 1, Maximum = FigureBounds.MaxMolecules, OperationOnly = true };
        ParameterSpec columns = new("columns", ParameterKind.Integer, "cells per row") { Default = 5, Minimum = 1, Maximum = MoleculeGrid.MaxColumns };
        ParameterSpec cellSize = new("cellSize", ParameterKind.Integer, "a cell's side in pixels") { Default = 220, Minimum = 80, Maximum = 800 };
        ParameterSpec title = new("title", ParameterKind.String, "the grid's title (empty: how many compounds)") { Default = "" };
        return new()
        {
            Service = ServiceNames.Render,
            Name = "molecule-grid",
            Progress = [new("iteration", "molecules drawn")],
            Summary = "A grid of compounds as RDKit draws them (SVG), each captioned with its id and size: the representatives of a clustering, e.g. the medoids of the largest Butina clusters.",
            Inputs = [compounds, items, sizes],
            Parameters = [count, columns, cellSize, title],
            Outputs = [new("job", T.Rendering, "the rendering job (its file)")],
            Artifacts = [Artifacts.MoleculesSvg],
            Execute = async c =>
            {
                var drawn = c.Get<int>(count);
                var request = new RenderMoleculeGridRequest
                {
                    CompoundsDatasetId = c.InputString(compounds),
                    Columns = c.Get<int>(columns),
                    CellSize = c.Get<int>(cellSize),
                    Title = c.Get<string>(title),
                };
                request.Items.AddRange(c.Input(items).Deserialize<int[]>()!.Take(drawn));
                if (c.Has(sizes))
                {
                    request.Sizes.AddRange(c.Input(sizes).Deserialize<double[]>()!.Take(drawn));
                }

                var job = await c.RunJobAsync(ServiceNames.Render, (invoker, options) => new RenderClient(invoker).StartMoleculeGridAsync(request, options));
                return StepOutcome.Of(job, ("job", job.ToJson()));
            },
        };
    }
}

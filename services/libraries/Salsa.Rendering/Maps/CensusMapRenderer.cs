using Salsa.Rendering.Atlas;
using Salsa.Rendering.Drawing;

namespace Salsa.Rendering.Maps;

/// <summary>
/// A map of a census clustering: state (and, zoomed in, county) outlines, the points coloured by
/// cluster, each cluster's convex hull, and the centres as circles whose area is proportional
/// to the cluster's population, with title, legend, scale bars and caption. PNG and SVG come
/// from the same drawing code.
/// </summary>
/// <remarks>
/// The main view is drawn in the clustering's own equirectangular plane (the centres'
/// <see cref="ClusterCentres.Projection"/>, else one centred on the population), fitted to the
/// points with a margin. When the points cover the conterminous US and Alaska, Hawaii or Puerto
/// Rico, those get insets in the side column (<see cref="MapLayoutMode"/>), each in its own
/// plane. The SVG draws at most <see cref="CensusMapOptions.MaxSvgPoints"/> points.
/// </remarks>
public static class CensusMapRenderer
{
    public static byte[] RenderPng(ClusteredPoints data, CensusMapOptions? options = null)
    {
        var (plan, atlas) = Prepare(data, options);
        using var canvas = Canvas.CreateRaster(plan.Options.Width, plan.Options.Height, plan.Options.PngScale);
        new MapPainter(canvas, plan, atlas).Paint();
        return canvas.ToPngBytes();
    }

    public static string RenderSvg(ClusteredPoints data, CensusMapOptions? options = null)
    {
        var (plan, atlas) = Prepare(data, options);
        using var canvas = Canvas.CreateSvg(plan.Options.Width, plan.Options.Height);
        new MapPainter(canvas, plan, atlas).Paint();
        return canvas.ToSvgString();
    }

    /// <summary>Draws the map on a canvas of at least the options' size (e.g. one panel of a larger figure).</summary>
    public static void Draw(Canvas canvas, ClusteredPoints data, CensusMapOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(canvas);
        var (plan, atlas) = Prepare(data, options);
        new MapPainter(canvas, plan, atlas).Paint();
    }

    /// <summary>Where the map puts things: its panels, and so where any position is drawn.</summary>
    public static MapLayout Plan(ClusteredPoints data, CensusMapOptions? options = null) => Prepare(data, options).Plan.Layout;

    private static (MapPlan Plan, UsAtlas Atlas) Prepare(ClusteredPoints data, CensusMapOptions? options)
    {
        ArgumentNullException.ThrowIfNull(data);
        options ??= new CensusMapOptions();
        options.Validate();
        var atlas = options.Atlas ?? UsAtlas.Default;
        return (MapPlan.Create(data, options, atlas, options.World ?? WorldAtlas.Default), atlas);
    }
}

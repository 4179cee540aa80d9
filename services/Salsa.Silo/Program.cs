using Orleans.Dashboard;
using Salsa.Grid;
using Salsa.Hosting;
using Salsa.Hosting.Host;
using Salsa.Settings;
using Salsa.Silo;

if (SalsaVersion.PrintIfAsked(args, Console.Out))
{
    return 0;
}

return await SalsaServiceHost.RunAsync("silo", () =>
{
    var builder = WebApplication.CreateBuilder(args);
    builder.AddServiceDefaults("silo");
    builder.AddStore();
    builder.AddSalsaSilo(SiloHosting.Settings(builder.Services.BindSalsaOptions<GridOptions>(builder.Configuration, SiloHosting.Section)), silo => silo.AddDashboard());

    var app = builder.Build();
    app.MapDefaultEndpoints();
    app.MapClusterApi();
    app.MapOrleansDashboard(routePrefix: "/dashboard");
    return app;
});

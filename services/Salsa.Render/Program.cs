using Salsa.Render;
using Salsa.Hosting.Host;

await SalsaServiceHost.Create<RenderService>(args).RunAsync();

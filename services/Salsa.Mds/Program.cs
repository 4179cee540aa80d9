using Salsa.Mds;
using Salsa.Hosting.Host;

return await SalsaServiceHost.RunAsync<MdsService>(args);

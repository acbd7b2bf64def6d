; elicitray's Windows installer (NSIS 3, Debian's makensis): a per-user
; install, no administrator needed, into %LOCALAPPDATA%\Programs\elicitray,
; with a Start-menu entry, an entry in Settings > Apps (the uninstaller),
; and an optional start at sign-in. `make package-windows` builds it, with
; the version stamped in; app/e2e/wine_test.go installs and uninstalls it
; under Wine.
;
; makensis -DVERSION=1.2.3 -DNUMVERSION=1.2.3.0 -DEXE=path\elicitray.exe
;          -DOUTFILE=path\setup.exe [-DCOMPRESSOR=zlib] installer.nsi
;
; Silent use (/S), as an administrator's script or the test runs it:
;   setup.exe /S [/AUTOSTART=0] [/D=DIR]   DIR last, unquoted, as NSIS wants
;   uninstall.exe /S [/REMOVEDATA] [/KEEPHOSTS]
; Without /AUTOSTART=0 elicitray starts at sign-in; without /REMOVEDATA the
; history and settings stay; without /KEEPHOSTS every host's server entries
; get their own commands back (`elicitray hosts unwrap --all`), so that no
; host is left running a program that is gone.

; A 64-bit installer, as elicitray.exe is a 64-bit program (Windows on x64
; and, by emulation, on Arm).
Target amd64-unicode
ManifestDPIAware true
RequestExecutionLevel user
; The release's installer is the smallest (lzma); make test-windows builds
; one with zlib, a quarter larger and four times faster to make.
!ifndef COMPRESSOR
  !define COMPRESSOR "/SOLID lzma"
!endif
SetCompressor ${COMPRESSOR}

!ifndef VERSION | NUMVERSION | EXE | OUTFILE
  !error "makensis needs -DVERSION, -DNUMVERSION, -DEXE and -DOUTFILE (make package-windows gives them)"
!endif

!define UNINSTKEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\elicitray"
; Where elicitray keeps the user's files (app/platform/rundir.go,
; app/paths: adrg/xdg's directories on Windows are all LOCALAPPDATA).
!define DATADIR "$LOCALAPPDATA\elicitray"

!include MUI2.nsh
!include FileFunc.nsh
!include LogicLib.nsh

Name "elicitray"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\elicitray"
InstallDirRegKey HKCU "${UNINSTKEY}" "InstallLocation"
BrandingText "elicitray ${VERSION}"

VIProductVersion "${NUMVERSION}"
VIFileVersion "${NUMVERSION}"
VIAddVersionKey /LANG=0 "ProductName" "elicitray"
VIAddVersionKey /LANG=0 "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=0 "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=0 "FileDescription" "elicitray setup"
VIAddVersionKey /LANG=0 "CompanyName" "elicitray"
VIAddVersionKey /LANG=0 "LegalCopyright" "the elicitray authors"

!define MUI_ICON "elicitray.ico"
!define MUI_UNICON "elicitray.ico"
!define MUI_ABORTWARNING
!define MUI_COMPONENTSPAGE_NODESC
!define MUI_FINISHPAGE_RUN
!define MUI_FINISHPAGE_RUN_TEXT "$(RunNow)"
!define MUI_FINISHPAGE_RUN_FUNCTION RunNow

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_COMPONENTS
!insertmacro MUI_UNPAGE_INSTFILES

; The app speaks English and Simplified Chinese (ui/lang); so does its
; installer, in the language of the user's Windows when it is one of them.
!insertmacro MUI_LANGUAGE "English"
!insertmacro MUI_LANGUAGE "SimpChinese"

LangString SecApp ${LANG_ENGLISH} "elicitray"
LangString SecApp ${LANG_SIMPCHINESE} "elicitray"
LangString SecAutostart ${LANG_ENGLISH} "Start elicitray when I sign in (its tray icon shows every server's questions)"
LangString SecAutostart ${LANG_SIMPCHINESE} "登录时启动 elicitray（托盘图标显示每个服务器的提问）"
LangString RunNow ${LANG_ENGLISH} "Start elicitray now"
LangString RunNow ${LANG_SIMPCHINESE} "立即启动 elicitray"
LangString InUse ${LANG_ENGLISH} "elicitray.exe is in use: an MCP host (Claude Desktop, Cursor, VS Code…) still runs a server through it. Quit the host, then choose Retry."
LangString InUse ${LANG_SIMPCHINESE} "elicitray.exe 正在使用中：某个 MCP 主机（Claude Desktop、Cursor、VS Code…）仍在通过它运行服务器。请退出该主机，然后选择“重试”。"
LangString UnHosts ${LANG_ENGLISH} "Give the servers in my MCP hosts' configs their own commands back"
LangString UnHosts ${LANG_SIMPCHINESE} "让 MCP 主机配置中的服务器恢复各自原来的命令"
LangString UnData ${LANG_ENGLISH} "Also delete my history, rules and settings"
LangString UnData ${LANG_SIMPCHINESE} "同时删除我的历史记录、规则和设置"
LangString UnLater ${LANG_ENGLISH} "Some of elicitray's files are in use (an MCP host still runs a server through it); Windows removes them when you next restart."
LangString UnLater ${LANG_SIMPCHINESE} "elicitray 的部分文件正在使用中（某个 MCP 主机仍在通过它运行服务器）；Windows 会在下次重启时删除它们。"

FileErrorText "$(InUse)" "$(InUse)"

Section "!$(SecApp)" SecApp
  SectionIn RO
  ; A hub of an earlier install holds its files: it quits first.
  ${If} ${FileExists} "$INSTDIR\elicitray.exe"
    nsExec::ExecToLog '"$INSTDIR\elicitray.exe" quit'
    Pop $0
  ${EndIf}
  SetOutPath "$INSTDIR"
  File "/oname=elicitray.exe" "${EXE}"
  WriteUninstaller "$INSTDIR\uninstall.exe"
  ; The Start-menu entry opens History, as the Linux launcher entry does;
  ; the hub and its tray icon start with it.
  CreateShortcut "$SMPROGRAMS\elicitray.lnk" "$INSTDIR\elicitray.exe" "history window" "$INSTDIR\elicitray.exe" 0
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayName" "elicitray"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTKEY}" "Publisher" "elicitray"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayIcon" "$INSTDIR\elicitray.exe,0"
  WriteRegStr HKCU "${UNINSTKEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTKEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINSTKEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  WriteRegDWORD HKCU "${UNINSTKEY}" "EstimatedSize" $0
SectionEnd

; The app's own command writes the sign-in entry (HKCU\...\Run), so that
; `elicitray autostart status` and Settings agree with what was chosen.
Section "$(SecAutostart)" SecAutostart
  nsExec::ExecToLog '"$INSTDIR\elicitray.exe" autostart on'
  Pop $0
SectionEnd

Function .onInit
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/AUTOSTART=" $R1
  ${IfNot} ${Errors}
  ${AndIf} $R1 == "0"
    SectionSetFlags ${SecAutostart} 0
  ${EndIf}
FunctionEnd

Function RunNow
  Exec '"$INSTDIR\elicitray.exe"'
FunctionEnd

; Before the program goes: hosts whose configs run servers through it
; would fail to start them.
Section "un.$(UnHosts)" UnHosts
  nsExec::ExecToLog '"$INSTDIR\elicitray.exe" hosts unwrap --all'
  Pop $0
SectionEnd

Section "-un.Program"
  nsExec::ExecToLog '"$INSTDIR\elicitray.exe" quit'
  Pop $0
  nsExec::ExecToLog '"$INSTDIR\elicitray.exe" autostart off'
  Pop $0
  Delete /REBOOTOK "$INSTDIR\elicitray.exe"
  Delete "$INSTDIR\uninstall.exe"
  RMDir /REBOOTOK "$INSTDIR"
  Delete "$SMPROGRAMS\elicitray.lnk"
  DeleteRegKey HKCU "${UNINSTKEY}"
  ${If} ${RebootFlag}
    MessageBox MB_OK|MB_ICONINFORMATION "$(UnLater)" /SD IDOK
  ${EndIf}
SectionEnd

Section /o "un.$(UnData)" UnData
  RMDir /r "${DATADIR}"
  ; Fyne's own store for the app (its ID, FyneApp.toml).
  RMDir /r "$APPDATA\fyne\io.github.elicitray"
  RMDir "$APPDATA\fyne"
SectionEnd

Function un.onInit
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/REMOVEDATA" $R1
  ${IfNot} ${Errors}
    SectionSetFlags ${UnData} ${SF_SELECTED}
  ${EndIf}
  ClearErrors
  ${GetOptions} $R0 "/KEEPHOSTS" $R1
  ${IfNot} ${Errors}
    SectionSetFlags ${UnHosts} 0
  ${EndIf}
FunctionEnd
